//! The integration tests, one program: the library through its public API and the egtb binary
//! as a user meets it, for chess, xiangqi, dark chess and every game together: the command line,
//! table files, batches and their plans (on a Slurm cluster too), `egtb play`, and the server with
//! its page.

mod support;

mod audit;
mod batches;
mod browser;
mod chess_gpu;
mod chess_index;
mod chess_moves;
mod chess_notation;
mod chess_pawns;
mod chess_space;
mod chess_tables;
mod cli;
mod darkchess_all;
mod darkchess_gpu;
mod darkchess_reference;
mod darkchess_rules;
mod darkchess_space;
mod darkchess_values;
mod plan;
mod play;
mod query_consistency;
mod serve;
mod slurm;
mod table_files;
mod xiangqi_asian;
mod xiangqi_gpu;
mod xiangqi_index;
mod xiangqi_larger;
mod xiangqi_moves;
mod xiangqi_reference;
