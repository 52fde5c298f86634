//! The `egtb` command line: parses arguments and calls the library's commands.

use std::any::Any;
use std::ffi::OsStr;
use std::panic::Location;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::Result;
use clap::builder::{PossibleValue, PossibleValuesParser, StringValueParser, TypedValueParser};
use clap::{Args, CommandFactory, Parser, Subcommand};
use clap_complete::Shell;
use egtb::Error;
use egtb::commands::{self, Env, above_zero, generate::Request, query::Question};
use egtb::counted::counted;
use egtb::error::{error_line, one_line};
use egtb::games::Rules;
use egtb::games::darkchess::DarkChessRules;
use egtb::games::xiangqi::XiangqiRules;
use egtb::generate::Backend;
use egtb::material::GameId;
use egtb::solver::gpu::GpuOptions;
use egtb::table::{Encoding, LEVELS};
use egtb::with_game;

#[derive(Parser)]
#[command(
    name = "egtb",
    version,
    about = "Endgame tablebases for chess, xiangqi and Chinese dark chess",
    after_help = "Environment:\n  \
        EGTB_TABLES          the folder holding the tables (--tables)\n  \
        EGTB_MAX_MEMORY      the memory generation may count on, for example 16G or 512M\n  \
        EGTB_PROGRESS_EVERY  seconds between progress lines when stderr is no terminal (0: none)\n  \
        NO_COLOR             no colours in the output\n  \
        RUST_BACKTRACE       a panic's full report instead of one line"
)]
struct Cli {
    /// Folder holding the tables.
    #[arg(long, global = true, help_heading = GLOBAL, env = "EGTB_TABLES", default_value = "tables")]
    tables: PathBuf,
    /// Print JSON for programs instead of text for people.
    #[arg(long, global = true, help_heading = GLOBAL)]
    json: bool,
    /// Dark chess: how cannons capture (jump over a screen, or step like the others).
    #[arg(long, global = true, help_heading = RULES, value_parser = PossibleValuesParser::new(DarkChessRules::values("cannon")))]
    cannon: Option<String>,
    /// Dark chess: what a side with pieces but no legal move gets.
    #[arg(long, global = true, help_heading = RULES, value_parser = PossibleValuesParser::new(DarkChessRules::values("stalemate")))]
    stalemate: Option<String>,
    /// Xiangqi: the repetition rules (`draw`: a repeated position is a draw; `asian`: perpetual
    /// check and perpetual chase lose).
    #[arg(long, global = true, help_heading = RULES, value_parser = PossibleValuesParser::new(XiangqiRules::values("rules")))]
    rules: Option<String>,
    /// Worker threads of the CPU solver and of reading, checking and writing tables (default:
    /// all cores).
    #[arg(long, global = true, help_heading = GLOBAL, value_parser = threads)]
    threads: Option<usize>,
    #[command(subcommand)]
    command: Command,
}

/// The help's heading of the options every command takes.
const GLOBAL: &str = "Options of every command";
/// The help's heading of the games' rule options, which every command takes and applies to the
/// game it reads.
const RULES: &str = "Rules (of the game they name)";

/// The GPU solver's settings, taken by the commands that may solve on the GPU.
#[derive(Args)]
struct GpuArgs {
    /// Largest GPU storage binding in MiB (default: the device's limit); tables larger than one
    /// binding are split over several.
    #[arg(long = "gpu-split-mib", value_name = "MIB", value_parser = mebibytes)]
    split_bytes: Option<u64>,
    /// The longest wait in seconds for one submission of GPU work before giving up (default
    /// 600): a software driver on a busy machine may need longer.
    #[arg(long = "gpu-timeout", value_name = "SECONDS", value_parser = gpu_timeout)]
    timeout: Option<Duration>,
}

impl GpuArgs {
    /// The GPU solver's options, the defaults where none was given.
    fn options(&self) -> GpuOptions {
        let defaults = GpuOptions::default();
        GpuOptions {
            split_bytes: self.split_bytes,
            timeout: self.timeout.unwrap_or(defaults.timeout),
            ..defaults
        }
    }
}

/// A position given on the command line, quoted or as separate words (`8/8/8/4k3/8/8/8/R3K3 w`).
#[derive(Args)]
struct PositionArg {
    /// A position: chess FEN (8 ranks), xiangqi WXF FEN (10 ranks) or dark chess (4 ranks),
    /// quoted or not, after its game's name or alone.
    #[arg(value_name = "POSITION", required = true, num_args = 1..)]
    words: Vec<String>,
}

/// The position's help, for a command that also answers a list of positions (`-`).
fn or_standard_input(arg: clap::Arg) -> clap::Arg {
    let help = arg.get_help().map(|h| h.to_string()).unwrap_or_default();
    arg.help(format!(
        "{}; `-` reads positions from the standard input, one a line",
        help.trim_end_matches('.')
    ))
}

#[derive(Subcommand)]
enum Command {
    /// Generate tables, and every smaller table they need first.
    Generate {
        /// The game.
        #[arg(value_parser = game_names())]
        game: String,
        /// Materials such as KQvKR (first side, v, second side).
        materials: Vec<String>,
        /// Generate every supported material with at most this many pieces.
        #[arg(long, value_parser = pieces)]
        pieces: Option<usize>,
        /// The solver: auto takes the GPU solver on a hardware GPU, else the CPU solver (a note
        /// says why); gpu runs on a software driver too.
        #[arg(long, default_value = "auto", value_parser = PossibleValuesParser::new(Backend::ALL.map(Backend::name)))]
        backend: String,
        /// Write new tables uncompressed (raw entries) instead of in zstd blocks.
        #[arg(long, conflicts_with = "level")]
        uncompressed: bool,
        /// Compress new tables at this zstd level (1 to 22; default 7, 3 below 2^25 states):
        /// 15 makes 5-piece tables about 14% smaller at several times the time of writing them.
        #[arg(long, value_parser = zstd_level)]
        level: Option<i32>,
        #[command(flatten)]
        gpu: GpuArgs,
    },
    /// Show the tables a batch needs in dependency order, with state counts, estimated peak
    /// memory (on the CPU solver, and on the GPU solver the host's) and whether each is present
    /// or being built; or the batch as Slurm jobs (--slurm).
    Plan {
        /// The game.
        #[arg(value_parser = game_names())]
        game: String,
        /// Materials such as KQvKR (first side, v, second side).
        materials: Vec<String>,
        /// Plan every supported material with at most this many pieces.
        #[arg(long, value_parser = pieces)]
        pieces: Option<usize>,
        /// Print a bash script that submits one Slurm job per table still to build, each after
        /// the jobs of the tables it reads.
        #[arg(long)]
        slurm: bool,
        #[command(flatten)]
        slurm_options: commands::plan::SlurmRequest,
    },
    /// Show a position's value and every legal move's outcome (the game is told by the position).
    #[command(mut_arg("words", or_standard_input))]
    Query {
        #[command(flatten)]
        position: PositionArg,
    },
    /// Show the best-play line from a position to the end of the game.
    #[command(mut_arg("words", or_standard_input))]
    Line {
        #[command(flatten)]
        position: PositionArg,
    },
    /// Count legal positions, wins, draws and losses, and the longest DTM, per side to move.
    Stats {
        /// The game.
        #[arg(value_parser = game_names())]
        game: String,
        /// A material such as KQvKR (first side, v, second side).
        material: String,
        /// Also count the positions at each DTM (wins at odd plies, losses at even plies).
        #[arg(long)]
        by_dtm: bool,
    },
    /// List the tables present, their size, and whether they verify; then the totals.
    List,
    /// Build a table with both solvers and compare them byte for byte, and with the table on
    /// disk when there is one (needs a GPU adapter; a software driver will do). Smaller tables
    /// it needs and lacks are generated into the tables folder first; the table itself is not
    /// written.
    Verify {
        /// The game.
        #[arg(value_parser = game_names())]
        game: String,
        /// A material such as KQvKR (first side, v, second side).
        material: String,
        #[command(flatten)]
        gpu: GpuArgs,
    },
    /// Check tables on disk against the rules: every position's value must follow from its
    /// legal moves and the values they lead to, read forwards (no GPU needed).
    Audit {
        /// The game.
        #[arg(value_parser = game_names())]
        game: String,
        /// Materials such as KQvKR (first side, v, second side).
        materials: Vec<String>,
        /// Audit every supported material with at most this many pieces.
        #[arg(long, value_parser = pieces)]
        pieces: Option<usize>,
        /// Audit every N-th slot of each table instead of all of them.
        #[arg(long, value_name = "N", default_value_t = 1, value_parser = above_zero::<u64>)]
        every: u64,
    },
    /// Time both solvers on the same tables in one run (needs a GPU adapter). Smaller tables
    /// they need and lack are generated into the tables folder first, untimed; the tables timed
    /// are not written.
    Bench {
        /// The game.
        #[arg(value_parser = game_names())]
        game: String,
        /// Materials such as KQvKR (first side, v, second side).
        #[arg(required = true)]
        materials: Vec<String>,
        #[command(flatten)]
        gpu: GpuArgs,
    },
    /// Rewrite tables compressed (zstd blocks), in place: every table in the folder, a game's,
    /// or the named materials'.
    Compress {
        /// The game (none: every table in the folder).
        #[arg(value_parser = game_names())]
        game: Option<String>,
        /// Materials such as KQvKR (none: every table of the game).
        materials: Vec<String>,
        /// Rewrite every table at this zstd level (1 to 22) unless it is at it already; without
        /// it, tables already compressed are left as they are. 15 makes 5-piece tables about 14%
        /// smaller than generation writes them; probes take about a fifth longer.
        #[arg(long, value_parser = zstd_level)]
        level: Option<i32>,
    },
    /// Rewrite tables uncompressed (raw entries), in place: every table in the folder, a game's,
    /// or the named materials'.
    Decompress {
        /// The game (none: every table in the folder).
        #[arg(value_parser = game_names())]
        game: Option<String>,
        /// Materials such as KQvKR (none: every table of the game).
        materials: Vec<String>,
    },
    /// Serve the board in the browser and the JSON API (`/api/chess?fen=...`) over the tables.
    Serve {
        /// Port to listen on (0: any free port; the address is printed).
        #[arg(long, default_value_t = egtb::serve::DEFAULT_PORT, value_parser = port)]
        port: u16,
        /// Address to listen on, or localhost for 127.0.0.1 (a loopback address answers requests
        /// for localhost only).
        #[arg(long, default_value = "127.0.0.1")]
        bind: String,
        /// Also answer requests for this host name on a loopback address (a proxy's public
        /// name); may be given more than once.
        #[arg(long, value_name = "NAME")]
        allow_host: Vec<String>,
    },
    /// Play against the table in the terminal (the game is told by the position).
    Play {
        #[command(flatten)]
        position: PositionArg,
        /// The side you play: white or black (red or black); default the side to move.
        #[arg(long, value_parser = Hints(|| vec!["white", "black", "red"]))]
        side: Option<String>,
        /// The table plays both sides to the end.
        #[arg(long, conflicts_with = "side")]
        auto: bool,
    },
    /// Print a completion script for a shell.
    ///
    /// bash: `egtb completions bash > ~/.local/share/bash-completion/completions/egtb`; zsh: the
    /// script as a file `_egtb` in a folder of `$fpath`; fish: as
    /// `~/.config/fish/completions/egtb.fish`.
    Completions {
        /// The shell.
        shell: Shell,
    },
}

fn run(cli: Cli) -> Result<()> {
    let options = [
        ("cannon", &cli.cannon),
        ("stalemate", &cli.stalemate),
        ("rules", &cli.rules),
    ]
    .into_iter()
    .filter_map(|(key, value)| value.as_ref().map(|v| (key.to_string(), v.clone())))
    .collect();
    let env = Env {
        tables: cli.tables,
        options,
        json: cli.json,
    };
    if !matches!(cli.command, Command::Completions { .. }) {
        env.check_tables_folder()?;
    }
    if let Some(threads) = cli.threads {
        rayon::ThreadPoolBuilder::new().num_threads(threads).build_global()?;
    }
    match cli.command {
        Command::Generate {
            game,
            materials,
            pieces,
            backend,
            uncompressed,
            level,
            gpu,
        } => {
            let request = Request {
                materials,
                pieces,
                backend: Backend::parse(&backend)?,
                gpu: gpu.options(),
                encoding: if uncompressed { Encoding::Raw } else { compressed(level) },
            };
            with_game!(GameId::parse(&game)?, G => commands::generate::run::<G>(&env, &request))
        }
        Command::Plan {
            game,
            materials,
            pieces,
            slurm,
            slurm_options,
        } => {
            let request = commands::plan::Request {
                materials,
                pieces,
                slurm: slurm.then_some(slurm_options),
            };
            with_game!(GameId::parse(&game)?, G => commands::plan::run::<G>(&env, &request))
        }
        Command::Query { position } => commands::query::ask(&env, &position.words, Question::Value),
        Command::Line { position } => commands::query::ask(&env, &position.words, Question::Line),
        Command::Stats { game, material, by_dtm } => {
            with_game!(GameId::parse(&game)?, G => commands::stats::run::<G>(&env, &material, by_dtm))
        }
        Command::List => commands::list::run(&env),
        Command::Verify { game, material, gpu } => {
            let gpu = gpu.options();
            with_game!(GameId::parse(&game)?, G => commands::verify::run::<G>(&env, &material, &gpu))
        }
        Command::Audit {
            game,
            materials,
            pieces,
            every,
        } => {
            let request = commands::audit::Request {
                materials,
                pieces,
                every,
            };
            with_game!(GameId::parse(&game)?, G => commands::audit::run::<G>(&env, &request))
        }
        Command::Bench { game, materials, gpu } => {
            let gpu = gpu.options();
            with_game!(GameId::parse(&game)?, G => commands::bench::run::<G>(&env, &materials, &gpu))
        }
        Command::Compress { game, materials, level } => {
            commands::convert::run(&env, "compress", compressed(level), game.as_deref(), &materials)
        }
        Command::Decompress { game, materials } => {
            commands::convert::run(&env, "decompress", Encoding::Raw, game.as_deref(), &materials)
        }
        Command::Serve { port, bind, allow_host } => commands::serve::run(&env, &bind, port, allow_host),
        Command::Play { position, side, auto } => commands::play::start(&env, &position.words, side.as_deref(), auto),
        Command::Completions { shell } => {
            env.takes_no_rules("completions cover every game and rule option")?;
            clap_complete::generate(shell, &mut Cli::command(), "egtb", &mut std::io::stdout());
            Ok(())
        }
    }
}

/// The games' names, the values a game argument takes.
fn game_names() -> PossibleValuesParser {
    PossibleValuesParser::new(GameId::ALL.map(GameId::name))
}

/// A value parser that takes any text, which the command then checks with errors of its own (a
/// side's names depend on the game), and names the values a shell completes and `--help` lists.
#[derive(Clone)]
struct Hints(fn() -> Vec<&'static str>);

impl TypedValueParser for Hints {
    type Value = String;

    fn parse_ref(&self, cmd: &clap::Command, arg: Option<&clap::Arg>, value: &OsStr) -> Result<String, clap::Error> {
        StringValueParser::new().parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new((self.0)().into_iter().map(PossibleValue::new)))
    }
}

/// The compressed encoding at `--level`, or at the level for each table's size.
fn compressed(level: Option<i32>) -> Encoding {
    level.map_or(Encoding::DEFAULT, Encoding::zstd_at)
}

/// `--level`: a zstd level tables may be written at.
fn zstd_level(text: &str) -> Result<i32, String> {
    match text.parse::<i32>() {
        Ok(level) if LEVELS.contains(&level) => Ok(level),
        _ => Err(format!(
            "'{text}' is not a zstd level from {} to {}",
            LEVELS.start(),
            LEVELS.end()
        )),
    }
}

/// `--pieces`: a whole number; the game says which are too few or too many.
fn pieces(text: &str) -> Result<usize, String> {
    text.parse().map_err(|_| format!("'{text}' is not a number of pieces"))
}

/// `--gpu-split-mib`: mebibytes above zero, as bytes.
fn mebibytes(text: &str) -> Result<u64, String> {
    let mib = above_zero::<u64>(text)?;
    mib.checked_mul(1 << 20)
        .ok_or_else(|| format!("'{text}' MiB is too large"))
}

/// `--port`: a TCP port.
fn port(text: &str) -> Result<u16, String> {
    text.parse()
        .map_err(|_| format!("'{text}' is not a port from 0 to 65535"))
}

/// `--gpu-timeout`: seconds, fractions allowed, more than zero.
fn gpu_timeout(text: &str) -> Result<Duration, String> {
    match text.parse::<f64>() {
        Ok(seconds) if seconds > 0.0 => match Duration::try_from_secs_f64(seconds) {
            Ok(timeout) if !timeout.is_zero() => Ok(timeout),
            Ok(_) => Err(format!("'{text}' seconds is shorter than a nanosecond")),
            Err(_) => Err(format!("'{text}' seconds is longer than a timeout can be")),
        },
        _ => Err(format!("'{text}' is not a number of seconds above 0")),
    }
}

/// `--threads`: a whole number above zero, at most four a core: the solver's layers wait for
/// every thread, so threads beyond the cores only add waiting (4,096 threads on 2 cores took 77 s
/// over a table that 2 solve in a hundredth of a second).
fn threads(text: &str) -> Result<usize, String> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let most = 4 * cores;
    match text.parse::<usize>() {
        Ok(threads) if (1..=most).contains(&threads) => Ok(threads),
        Ok(threads) if threads > most => Err(format!(
            "{threads} threads are more than {} can use: give at most {most} (four a core)",
            counted(cores, "core")
        )),
        _ => Err(format!("'{text}' is not a number of threads above 0")),
    }
}

/// A command-line usage error in one line, like every other error: clap's message, its tip and
/// the usage it shows, without the blank lines and the pointer to `--help`. The tip to pass a
/// word after `--` is left out: every command takes its options anywhere, and after `--` the word
/// would be read as a material or a position.
fn usage_error_line(error: &clap::Error) -> String {
    let text = error.render().to_string();
    let mut line = String::new();
    let mut usage = None;
    for part in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if let Some(rest) = part.strip_prefix("Usage: ") {
            usage = Some(rest.to_string());
        } else if let Some(tip) = part.strip_prefix("tip: ") {
            if !tip.starts_with("to pass '") {
                line.push_str(&format!("; {tip}"));
            }
        } else if !part.starts_with("For more information") {
            let part = part.strip_prefix("error: ").unwrap_or(part);
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(part);
        }
    }
    match usage {
        Some(usage) => line.push_str(&format!(" (usage: {usage})")),
        None => line.push_str(" (see egtb --help)"),
    }
    line
}

/// The one line a panic prints: its message and where it happened. A panic is either a bug or a
/// failure in the middle of work that has no way back (a smaller table truncated by another
/// program while a solve reads it); either way the user gets one line, as for any error, and
/// `RUST_BACKTRACE=1` brings back Rust's full report.
fn panic_line(payload: &(dyn Any + Send), location: Option<&Location>) -> String {
    let message = match (payload.downcast_ref::<&str>(), payload.downcast_ref::<String>()) {
        (Some(text), _) => text,
        (_, Some(text)) => text.as_str(),
        _ => "a failure without a message",
    };
    let place = location.map_or(String::new(), |l| format!(" (panicked at {}:{})", l.file(), l.line()));
    one_line(&format!("{message}{place}"))
}

/// Reports panics as [`panic_line`]s (unless `RUST_BACKTRACE` asks for Rust's report). A server
/// reports each and goes on (the request that panicked is answered 500); any other command stops
/// at the first, with exit status 101, rather than going on with work that has failed: what it
/// leaves is what a killed run leaves, which the next run cleans up.
fn report_panics_in_one_line(server: bool) {
    if std::env::var_os("RUST_BACKTRACE").is_some() {
        return;
    }
    static REPORTED: AtomicBool = AtomicBool::new(false);
    std::panic::set_hook(Box::new(move |info| {
        let first = !REPORTED.swap(true, Ordering::SeqCst);
        if server || first {
            eprintln!("egtb: error: {}", panic_line(info.payload(), info.location()));
        }
        if first && !server {
            egtb::table::remove_temporary_files();
            std::process::exit(101);
        }
    }));
}

/// The write end of the pipe that [`on_interrupt`] tells the interrupt thread through.
static INTERRUPTS: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(-1);

/// The handler of SIGINT and SIGTERM: passes the signal on to the interrupt thread, through a
/// pipe, since a handler may do little else safely.
extern "C" fn on_interrupt(signal: libc::c_int) {
    let byte = signal as u8;
    // SAFETY: write(2) is async-signal-safe; the buffer is one byte on this stack.
    unsafe { libc::write(INTERRUPTS.load(Ordering::Relaxed), (&raw const byte).cast(), 1) };
}

/// Ctrl-C or a request to terminate ends the run in one line, after removing the temporary files
/// of the tables being written: finished tables stay, and the same command goes on from them.
fn end_cleanly_when_interrupted() {
    let mut pipe = [0; 2];
    // SAFETY: pipe(2) fills the two descriptors of a fresh pipe.
    if unsafe { libc::pipe(pipe.as_mut_ptr()) } != 0 {
        return;
    }
    INTERRUPTS.store(pipe[1], Ordering::Relaxed);
    std::thread::spawn(move || {
        let mut signal = 0u8;
        // SAFETY: reads one byte from the pipe's read end into a local.
        if unsafe { libc::read(pipe[0], (&raw mut signal).cast(), 1) } != 1 {
            return;
        }
        let left = match egtb::table::remove_temporary_files() {
            0 => String::new(),
            n => format!(
                "; removed {} of tables not finished (finished tables are kept: the same command goes on from them)",
                counted(n, "temporary file")
            ),
        };
        // Below the progress bars, on a terminal.
        let below = if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
            "\n"
        } else {
            ""
        };
        eprintln!("{below}egtb: interrupted{left}");
        std::process::exit(128 + i32::from(signal));
    });
    let handler = on_interrupt as extern "C" fn(libc::c_int);
    // SAFETY: the handler only writes to the pipe, which stays open for the life of the process.
    unsafe {
        libc::signal(libc::SIGINT, handler as libc::sighandler_t);
        libc::signal(libc::SIGTERM, handler as libc::sighandler_t);
    }
}

fn main() -> ExitCode {
    // Printing into a closed pipe (`egtb query ... | head`) ends the program quietly, as in
    // other command-line tools, instead of failing on the write.
    // SAFETY: restoring the default disposition of a signal before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // Mesa's device-selection layer probes for a display server (and prints errors when there is
    // none); a compute-only program has no use for it.
    if std::env::var_os("NODEVICE_SELECT").is_none() {
        // SAFETY: no other thread exists yet.
        unsafe { std::env::set_var("NODEVICE_SELECT", "1") };
    }
    // An empty EGTB_TABLES names no folder, as an unset one does (clap would call it a missing
    // value of --tables, which the user never typed).
    if std::env::var_os("EGTB_TABLES").is_some_and(|value| value.is_empty()) {
        // SAFETY: no other thread exists yet.
        unsafe { std::env::remove_var("EGTB_TABLES") };
    }
    end_cleanly_when_interrupted();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // Help and version go to stdout as clap writes them; `egtb` alone shows the help on
        // stderr, as clap writes it, and fails as a usage error.
        Err(e) if !e.use_stderr() => e.exit(),
        Err(e) if e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            eprint!("{}", e.render());
            return ExitCode::from(2);
        }
        Err(e) => {
            eprintln!("egtb: error: {}", one_line(&usage_error_line(&e)));
            return ExitCode::from(2);
        }
    };
    report_panics_in_one_line(matches!(cli.command, Command::Serve { .. }));
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("egtb: error: {}", error_line(&e));
            match e.downcast_ref::<Error>() {
                Some(Error::Usage { .. }) => ExitCode::from(2),
                _ => ExitCode::FAILURE,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_is_reported_in_one_line_with_its_place() {
        let here = Location::caller();
        let line = panic_line(&String::from("block 3 can no longer be read:\ntruncated"), Some(here));
        let place = format!("(panicked at {}:{})", here.file(), here.line());
        assert_eq!(line, format!("block 3 can no longer be read:\\ntruncated {place}"));
        assert_eq!(panic_line(&"static text", None), "static text");
        assert_eq!(panic_line(&42, None), "a failure without a message");
    }

    #[test]
    fn every_rule_option_is_a_global_flag_that_offers_its_values() {
        let command = Cli::command();
        for (game, option) in egtb::games::all_rule_options() {
            let flag = command
                .get_arguments()
                .find(|a| a.get_long() == Some(option.name))
                .unwrap_or_else(|| panic!("{} option {} has no flag", game.name(), option.name));
            assert!(flag.is_global_set(), "--{}", option.name);
            let offered: Vec<String> = flag
                .get_possible_values()
                .iter()
                .map(|v| v.get_name().to_string())
                .collect();
            assert_eq!(offered, option.values, "--{}", option.name);
        }
    }

    #[test]
    fn only_query_and_line_offer_positions_from_the_standard_input() {
        let command = Cli::command();
        for sub in command.get_subcommands() {
            let Some(position) = sub.get_arguments().find(|a| a.get_id() == "words") else {
                continue;
            };
            let help = position.get_help().unwrap().to_string();
            let lists = ["query", "line"].contains(&sub.get_name());
            assert_eq!(
                help.contains("`-` reads positions"),
                lists,
                "{}: {help}",
                sub.get_name()
            );
        }
    }

    #[test]
    fn the_gpu_settings_belong_to_the_commands_that_solve() {
        let command = Cli::command();
        for sub in command.get_subcommands() {
            let solves = ["generate", "verify", "bench"].contains(&sub.get_name());
            for flag in ["gpu-split-mib", "gpu-timeout"] {
                let has = sub.get_arguments().any(|a| a.get_long() == Some(flag));
                assert_eq!(has, solves, "{} --{flag}", sub.get_name());
            }
        }
    }
}
