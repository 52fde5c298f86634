// egtb's board: draws the position, asks the server's JSON API for its value and moves, and
// lets a person analyse, play against the table, edit positions and read statistics.
"use strict";

const SVG = "http://www.w3.org/2000/svg";

// Each game's board: size, how squares are named and the pieces. Its rule options come from
// the server (RULES).
const GAMES = {
  chess: {
    files: 8, ranks: 8, points: false, firstRank: 1,
    sides: ["white", "black"],
    start: "8/8/8/4k3/8/8/8/R3K3 w - - 0 1",
    suffix: " - - 0 1",
    kinds: "KQRBNP",
    glyphs: { K: "\u265A", Q: "\u265B", R: "\u265C", B: "\u265D", N: "\u265E", P: "\u265F" },
  },
  xiangqi: {
    files: 9, ranks: 10, points: true, firstRank: 0, fileNumbers: true,
    sides: ["red", "black"],
    start: "4k4/9/9/9/9/9/9/9/9/3K1R3 w - - 0 1",
    suffix: " - - 0 1",
    kinds: "KARNCBP",
    glyphs: {
      K: "\u5E25", A: "\u4ED5", B: "\u76F8", N: "\u508C", R: "\u4FE5", C: "\u70AE", P: "\u5175",
      k: "\u5C07", a: "\u58EB", b: "\u8C61", n: "\u99AC", r: "\u8ECA", c: "\u7832", p: "\u5352",
    },
  },
  darkchess: {
    files: 8, ranks: 4, points: false, firstRank: 1,
    sides: ["red", "black"],
    start: "k7/8/8/6AK w",
    suffix: "",
    kinds: "KAERNCP",
    glyphs: {
      K: "\u5E25", A: "\u4ED5", E: "\u76F8", R: "\u4FE5", N: "\u508C", C: "\u70AE", P: "\u5175",
      k: "\u5C07", a: "\u58EB", e: "\u8C61", r: "\u8ECA", n: "\u99AC", c: "\u5305", p: "\u5352",
    },
  },
};

// Each game's rule options as the server gives them: [{ name, values, default }], the default
// being the server's own (`egtb serve --rules asian`) or else the game's.
const RULES = { chess: [], xiangqi: [], darkchess: [] };

const COLOURS = { win: "#2e9d3a", draw: "#d9a400", loss: "#d2352b" };
const CELL = 60;
// How long the table seems to think before its move in play mode, so that the person sees the
// position their move made before the answer replaces it.
const TABLE_MOVE_DELAY_MS = 300;

/// The band around the board that holds the coordinates: wider where pieces stand on the edge
/// lines' points (xiangqi) and would otherwise cover them, with room below for a second line.
function margin(game) {
  return GAMES[game].points ? 64 : 30;
}

const state = {
  game: "chess",
  options: {},
  flipped: false,
  letters: false,
  history: [],   // positions: { fen, move, table } where move is the API's entry of the move
                 // played, and table whether the table played it
  cursor: 0,
  analysis: null,
  line: null,
  tab: "analysis",
  playing: false,
  playSide: 0,
  answer: false, // whether the table may answer the position shown: not one stepped back to
  showAnswers: false,
  selected: null,
  editPiece: null,
  editFocus: null, // the editor's square in the tab order, once the arrow keys chose one
  request: 0,
  statsRequest: 0,
  randomRequest: 0,
  practice: null, // the history's entry of the practice position loaded: its answers stay
                  // hidden, as in play, until the person starts playing or leaves it
  materialsRequest: 0,
  noTablesNote: "", // what the statistics and the practice say while no table is listed
  chosenMaterial: {}, // the material a menu was set to by the person, by the menu's id
};

const $ = (id) => document.getElementById(id);

// ----- positions -------------------------------------------------------------------------

/// The board of a position's text as rows from the top: each a list of piece letters or null.
function parseBoard(fen, game) {
  const g = GAMES[game];
  const rows = fen.trim().split(/\s+/)[0].split("/");
  const grid = [];
  for (let r = 0; r < g.ranks; r++) {
    const row = [];
    for (const c of rows[r] || "") {
      if (/[0-9]/.test(c)) {
        for (let i = 0; i < Number(c); i++) row.push(null);
      } else {
        row.push(c);
      }
    }
    while (row.length < g.files) row.push(null);
    grid.push(row.slice(0, g.files));
  }
  return grid;
}

/// The game whose board has as many ranks as position `fen` has, if one has.
function gameOfFen(fen) {
  const ranks = fen.trim().split(/\s+/)[0].split("/").length;
  return Object.keys(GAMES).find((game) => GAMES[game].ranks === ranks) || null;
}

function sideToMove(fen) {
  return fen.trim().split(/\s+/)[1] === "b" ? 1 : 0;
}

/// The number of the move a FEN is at, its last field (1 where it has none, as in dark chess).
function moveNumber(fen) {
  const number = Number(fen.trim().split(/\s+/)[5]);
  return Number.isInteger(number) && number > 0 ? number : 1;
}

/// A FEN without its clocks: what names the position itself.
function withoutClocks(fen) {
  return fen.trim().split(/\s+/).slice(0, 4).join(" ");
}

/// The text of a board grid with a side to move.
function formatPosition(grid, side, game) {
  const rows = grid.map((row) => {
    let out = "";
    let empty = 0;
    for (const c of row) {
      if (c === null) {
        empty++;
      } else {
        if (empty) out += empty;
        empty = 0;
        out += c;
      }
    }
    return empty ? out + empty : out;
  });
  return rows.join("/") + (side === 1 ? " b" : " w") + GAMES[game].suffix;
}

/// Board coordinates (file, row from the top) of a square name such as e2.
function squareAt(name, game) {
  const g = GAMES[game];
  const file = name.charCodeAt(0) - 97;
  const rank = Number(name.slice(1));
  return { file, row: g.ranks - 1 - (rank - g.firstRank) };
}

function squareName(file, row, game) {
  const g = GAMES[game];
  return String.fromCharCode(97 + file) + (g.ranks - 1 - row + g.firstRank);
}

/// The centre of a square or point in the SVG's coordinates, flipped as the board is.
function centre(file, row, game) {
  const g = GAMES[game];
  const f = state.flipped ? g.files - 1 - file : file;
  const r = state.flipped ? g.ranks - 1 - row : row;
  const offset = g.points ? 0 : CELL / 2;
  const m = margin(game);
  return { x: m + f * CELL + offset, y: m + r * CELL + offset };
}

function currentFen() {
  return state.history[state.cursor].fen;
}

// ----- drawing ---------------------------------------------------------------------------

function el(name, attrs, parent) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

/// Each game's piece names, for the squares' labels read out to a person using the keyboard.
const PIECE_NAMES = {
  chess: { K: "king", Q: "queen", R: "rook", B: "bishop", N: "knight", P: "pawn" },
  xiangqi: { K: "general", A: "advisor", B: "elephant", N: "horse", R: "chariot", C: "cannon", P: "soldier" },
  darkchess: { K: "general", A: "advisor", E: "elephant", R: "chariot", N: "horse", C: "cannon", P: "soldier" },
};

/// A piece's name with its side, such as "white rook".
function pieceName(piece) {
  const side = GAMES[state.game].sides[piece === piece.toUpperCase() ? 0 : 1];
  return `${side} ${PIECE_NAMES[state.game][piece.toUpperCase()] || piece}`;
}

/// Whether the person may move on the board now: not in the editor, not while the table is to
/// move in play mode.
function mayMove() {
  return state.tab !== "edit" && !(state.playing && sideToMove(currentFen()) !== state.playSide);
}

/// The board from the keyboard: a square holding a piece that can move, and while a piece is
/// selected each square it can go to, is a button in the tab order (Enter or Space clicks it).
/// In the editor every square is a button, one of them in the tab order, and the arrow keys go
/// from square to square (`editorArrow`). The focus stays on the board as it is redrawn: on
/// the same square where it is still a button, else on the board itself, from where Tab goes on
/// to its squares.
function keyboardSquares(svg, grid, focus) {
  const { wasOnBoard, focusedSquare } = focus;
  const editing = state.tab === "edit";
  if (!editing && !mayMove()) {
    if (wasOnBoard) svg.focus();
    return;
  }
  const targets = state.selected ? legalFrom(state.selected).map((m) => m.uci.slice(2, 4)) : [];
  const selectedPiece = state.selected ? pieceAt(grid, state.selected) : null;
  for (const square of svg.querySelectorAll(".square")) {
    const name = square.dataset.square;
    const piece = pieceAt(grid, name);
    let label = null;
    if (editing) {
      label = `${name}: ${piece ? pieceName(piece) : "empty"}`;
    } else if (targets.includes(name)) {
      label = `${selectedPiece ? pieceName(selectedPiece) : "piece"} from ${state.selected} to ${name}${piece ? `, taking the ${pieceName(piece)}` : ""}`;
    } else if (legalFrom(name).length) {
      label = `${pieceName(piece)} on ${name}${state.selected === name ? ", selected" : ""}`;
    }
    if (!label) continue;
    square.setAttribute("tabindex", !editing || name === editorSquare() ? "0" : "-1");
    square.setAttribute("role", "button");
    square.setAttribute("aria-label", label);
    square.addEventListener("keydown", (event) => {
      if (event.key !== "Enter" && event.key !== " ") return;
      event.preventDefault();
      squareClicked(name);
    });
  }
  if (!wasOnBoard) return;
  const again = focusedSquare && svg.querySelector(`.square[tabindex][data-square="${focusedSquare}"]`);
  (again || svg).focus();
}

/// The editor's square in the tab order: the last one the arrow keys reached, else a1 (a0 in
/// xiangqi), the first side's left corner, wherever a flip of the board puts it.
function editorSquare() {
  return state.editFocus || squareName(0, GAMES[state.game].ranks - 1, state.game);
}

/// An arrow key on a square of the editor: the focus goes to the next square that way, as the
/// board is drawn (flipped or not). Returns whether the key was one of the arrows.
function editorArrow(event) {
  const step = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] }[event.key];
  if (!step) return false;
  event.preventDefault();
  const g = GAMES[state.game];
  const at = squareAt(event.target.dataset.square, state.game);
  const sign = state.flipped ? -1 : 1;
  const file = at.file + sign * step[0];
  const row = at.row + sign * step[1];
  if (file < 0 || file >= g.files || row < 0 || row >= g.ranks) return true;
  const next = $(`sq-${squareName(file, row, state.game)}`);
  event.target.setAttribute("tabindex", "-1");
  next.setAttribute("tabindex", "0");
  state.editFocus = next.dataset.square;
  next.focus();
  return true;
}

function pieceAt(grid, name) {
  const s = squareAt(name, state.game);
  return grid[s.row][s.file];
}

function drawBoard() {
  const g = GAMES[state.game];
  const svg = $("board");
  // Where the focus is, before the squares that may hold it are replaced.
  const focused = document.activeElement;
  const wasOnBoard = focused === svg || svg.contains(focused);
  const focus = { wasOnBoard, focusedSquare: wasOnBoard && focused !== svg ? focused.dataset.square : null };
  svg.replaceChildren();
  const width = g.points ? (g.files - 1) * CELL : g.files * CELL;
  const height = g.points ? (g.ranks - 1) * CELL : g.ranks * CELL;
  const m = margin(state.game);
  svg.setAttribute("viewBox", `0 0 ${width + 2 * m} ${height + 2 * m}`);
  const defs = el("defs", {}, svg);
  for (const [name, colour] of Object.entries(COLOURS)) {
    const marker = el("marker", {
      id: `head-${name}`, viewBox: "0 0 10 10", refX: 5, refY: 5,
      markerWidth: 3, markerHeight: 3, orient: "auto-start-reverse",
    }, defs);
    el("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: colour }, marker);
  }
  el("rect", { x: 0, y: 0, width: width + 2 * m, height: height + 2 * m, fill: g.points ? "#f1d9a5" : "#e6d8b8" }, svg);
  if (state.game === "xiangqi") drawXiangqiLines(svg, width, height);
  if (state.game === "darkchess") {
    el("rect", { x: m, y: m, width, height, fill: "#f3e3c3", stroke: "#6b4f2a", "stroke-width": 2 }, svg);
  }
  drawCoordinates(svg);
  const grid = parseBoard(currentFen(), state.game);
  const squares = el("g", { id: "squares" }, svg);
  for (let row = 0; row < g.ranks; row++) {
    for (let file = 0; file < g.files; file++) {
      const c = centre(file, row, state.game);
      const name = squareName(file, row, state.game);
      let square;
      if (g.points) {
        square = el("circle", { cx: c.x, cy: c.y, r: CELL / 2 - 1, fill: "transparent" }, squares);
      } else {
        const dark = state.game === "chess" && (file + row) % 2 === 1;
        const fill = state.game === "chess" ? (dark ? "#b58863" : "#f0d9b5") : "transparent";
        square = el("rect", {
          x: c.x - CELL / 2, y: c.y - CELL / 2, width: CELL, height: CELL, fill,
          stroke: state.game === "darkchess" ? "#6b4f2a" : "none",
        }, squares);
      }
      square.setAttribute("id", `sq-${name}`);
      square.setAttribute("data-square", name);
      square.classList.add("square");
      if (state.selected === name) {
        el("circle", { cx: c.x, cy: c.y, r: CELL / 2 - 3, fill: "none", stroke: "#3a6fd8", "stroke-width": 4, "pointer-events": "none" }, svg);
      }
    }
  }
  drawLastMove(svg);
  for (let row = 0; row < g.ranks; row++) {
    for (let file = 0; file < g.files; file++) {
      const piece = grid[row][file];
      if (piece) drawPiece(svg, piece, centre(file, row, state.game), squareName(file, row, state.game));
    }
  }
  drawArrows(svg);
  keyboardSquares(svg, grid, focus);
  $("suggest").disabled = !(suggestedMove() && mayMove());
}

/// The table's best move from the position shown, once its analysis is in; none at the game's
/// end (a ruling's included).
function suggestedMove() {
  const a = state.analysis;
  return a && a.moves && a.moves.length && a.fen === currentFen() && !ruledHere(a) ? a.moves[0] : null;
}

function drawXiangqiLines(svg, width, height) {
  const m = margin("xiangqi");
  const line = (x1, y1, x2, y2) =>
    el("line", { x1: m + x1, y1: m + y1, x2: m + x2, y2: m + y2, stroke: "#5a3d1e", "stroke-width": 1.5 }, svg);
  for (let r = 0; r < 10; r++) line(0, r * CELL, width, r * CELL);
  for (let f = 0; f < 9; f++) {
    if (f === 0 || f === 8) {
      line(f * CELL, 0, f * CELL, height);
    } else {
      line(f * CELL, 0, f * CELL, 4 * CELL);
      line(f * CELL, 5 * CELL, f * CELL, height);
    }
  }
  for (const top of [0, 7]) {
    line(3 * CELL, top * CELL, 5 * CELL, (top + 2) * CELL);
    line(5 * CELL, top * CELL, 3 * CELL, (top + 2) * CELL);
  }
  const river = el("text", {
    x: m + width / 2, y: m + 4.5 * CELL + 9, "text-anchor": "middle",
    "font-size": 26, fill: "#7a5a30", "letter-spacing": "40",
  }, svg);
  river.textContent = "\u695A\u6CB3          \u6F22\u754C";
}

function drawCoordinates(svg) {
  const g = GAMES[state.game];
  const offset = g.points ? 0 : CELL / 2;
  const m = margin(state.game);
  const bottom = m + (g.points ? g.ranks - 1 : g.ranks) * CELL;
  const label = (x, y, text, cls = "coordinate") => {
    el("text", { x, y, "text-anchor": "middle", "font-size": 14, fill: "#555", class: cls }, svg).textContent = text;
  };
  for (let column = 0; column < g.files; column++) {
    const file = state.flipped ? g.files - 1 - column : column;
    const x = m + column * CELL + offset;
    label(x, bottom + m - (g.fileNumbers ? 22 : 10), String.fromCharCode(97 + file));
    if (g.fileNumbers) {
      // WXF numbers the files from each side's right: the side at the top reads its numbers
      // above the board, the side at the bottom below the letters.
      const [above, below] = [file + 1, g.files - file];
      label(x, 24, String(state.flipped ? below : above), "coordinate file-number");
      label(x, bottom + m - 6, String(state.flipped ? above : below), "coordinate file-number");
    }
  }
  for (let line = 0; line < g.ranks; line++) {
    const row = state.flipped ? g.ranks - 1 - line : line;
    label(g.points ? 14 : 12, m + line * CELL + offset + 5, String(g.ranks - 1 - row + g.firstRank));
  }
}

/// A piece's character in the game shown: chess draws both sides with the white glyphs (the
/// colour tells them apart); xiangqi's and dark chess's sides have characters of their own,
/// else the first side's.
function glyph(piece) {
  const g = GAMES[state.game];
  return state.game === "chess" ? g.glyphs[piece.toUpperCase()] : g.glyphs[piece] || g.glyphs[piece.toUpperCase()];
}

/// Fills a menu of sides with the game's sides, first side first.
function fillSides(select) {
  select.replaceChildren();
  GAMES[state.game].sides.forEach((name, i) => {
    const option = document.createElement("option");
    option.value = String(i);
    option.textContent = name;
    select.appendChild(option);
  });
}

function drawPiece(svg, piece, c, square) {
  const red = piece === piece.toUpperCase();
  const group = el("g", { class: "piece", "data-piece": piece, "data-square": square, "pointer-events": "none" }, svg);
  if (state.game === "chess") {
    const text = el("text", {
      x: c.x, y: c.y + 17, "text-anchor": "middle", "font-size": 50,
      fill: red ? "#fff" : "#111", stroke: red ? "#111" : "#eee", "stroke-width": 1.2,
      "font-family": "DejaVu Sans, sans-serif",
    }, group);
    text.textContent = state.letters ? piece : glyph(piece);
    // Letters bold, with a thicker outline: a white letter on a light square reads only so.
    if (state.letters) {
      text.setAttribute("font-size", 38);
      text.setAttribute("y", c.y + 13);
      text.setAttribute("font-weight", "bold");
      text.setAttribute("stroke-width", 1.8);
    }
    return;
  }
  const colour = red ? "#b3261e" : "#1c1c1c";
  el("circle", { cx: c.x, cy: c.y, r: CELL * 0.42, fill: "#fbeed3", stroke: colour, "stroke-width": 2.5 }, group);
  el("circle", { cx: c.x, cy: c.y, r: CELL * 0.35, fill: "none", stroke: colour, "stroke-width": 1 }, group);
  const text = el("text", {
    x: c.x, y: c.y + 10, "text-anchor": "middle", "font-size": 28, fill: colour,
    "font-family": "WenQuanYi Zen Hei, Noto Sans CJK SC, serif", "font-weight": "bold",
  }, group);
  text.textContent = state.letters ? piece : glyph(piece);
}

function drawLastMove(svg) {
  const move = state.history[state.cursor].move;
  if (!move) return;
  for (const name of [move.uci.slice(0, 2), move.uci.slice(2, 4)]) {
    const s = squareAt(name, state.game);
    const c = centre(s.file, s.row, state.game);
    el("rect", { x: c.x - CELL / 2 + 2, y: c.y - CELL / 2 + 2, width: CELL - 4, height: CELL - 4, fill: "#f5e663", opacity: 0.45, "pointer-events": "none" }, svg);
  }
}

/// The mover's outcome of a move: the API gives the opponent's view after it.
function moverCategory(move) {
  return { win: "loss", loss: "win", draw: "draw" }[move.category];
}

function drawArrows(svg) {
  const a = state.analysis;
  if (!a || a.fen !== currentFen() || !Array.isArray(a.moves) || ruledHere(a)) return;
  const layer = el("g", { class: "arrow", id: "arrows", "pointer-events": "none" }, svg);
  // The best moves (as good as the first listed) bold, the others thin and faint, so that the
  // best stands out; worst first, so that the best lie on top.
  const [first] = a.moves;
  const isBest = (move) => move.category === first?.category && move.dtm === first?.dtm;
  for (const move of [...a.moves].reverse()) {
    const category = moverCategory(move);
    const best = isBest(move);
    const from = squareAt(move.uci.slice(0, 2), state.game);
    const to = squareAt(move.uci.slice(2, 4), state.game);
    const p = centre(from.file, from.row, state.game);
    const q = centre(to.file, to.row, state.game);
    const dx = q.x - p.x;
    const dy = q.y - p.y;
    const length = Math.hypot(dx, dy);
    // From the edge of the moving piece, which stays in sight, to just short of the target.
    const start = { x: p.x + (dx / length) * CELL * 0.3, y: p.y + (dy / length) * CELL * 0.3 };
    const end = { x: q.x - (dx / length) * 12, y: q.y - (dy / length) * 12 };
    el("line", {
      x1: start.x, y1: start.y, x2: end.x, y2: end.y, stroke: COLOURS[category],
      "stroke-width": best ? 7 : 4, "stroke-linecap": "round", opacity: best ? 0.85 : 0.5,
      "marker-end": `url(#head-${category})`, class: `arrow-line ${category}${best ? " best" : ""}`,
      "data-uci": move.uci,
    }, layer);
  }
}

// ----- analysis --------------------------------------------------------------------------

function optionsQuery() {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(state.options)) params.set(k, v);
  return params;
}

/// Asks the server; a failure says what went wrong in words, not as the browser's own message
/// ("Failed to fetch") or a parser's on a page that is not the API's JSON (a proxy's error).
async function api(path, params) {
  let response;
  try {
    response = await fetch(`${path}?${params.toString()}`);
  } catch (e) {
    throw new Error(`The server did not answer (${e.message}): is egtb serve still running?`);
  }
  let body;
  try {
    body = await response.json();
  } catch {
    const status = `${response.status} ${response.statusText}`.trim();
    throw new Error(`The server's answer could not be read (HTTP ${status})`);
  }
  if (!response.ok) throw new Error(body.error || `HTTP ${response.status}`);
  return body;
}

function describe(move) {
  const category = moverCategory(move);
  if (category === "draw") return "draw";
  const plies = Math.abs(move.dtm) + 1;
  const moves = category === "win" ? Math.ceil(plies / 2) : Math.floor(plies / 2);
  return `${category} in ${moves} (DTM ${plies})`;
}

/// Shows the current position and asks the server about it.
async function refresh() {
  const fen = currentFen();
  if (state.history[state.cursor] !== state.practice) state.practice = null;
  state.analysis = null;
  state.line = null;
  hidePromotion();
  $("fen").value = fen;
  updateUrl();
  showToMove(fen);
  drawBoard();
  renderAnalysis();
  const ticket = ++state.request;
  const params = optionsQuery();
  params.set("fen", fen);
  try {
    const analysis = await api(`/api/${state.game}`, params);
    if (ticket !== state.request) return;
    state.analysis = analysis.no_pieces ? { fen: analysis.fen, ended: "no_pieces" } : analysis;
    // The server's FEN is the position written in full (a short FEN, typed or linked, gets its
    // missing fields, `_` read as a space): the analysis and the moves on the board are matched
    // to the position by it, and the side to move is read from it.
    if (analysis.fen !== fen) {
      state.history[state.cursor].fen = analysis.fen;
      $("fen").value = analysis.fen;
      updateUrl();
      showToMove(analysis.fen);
    }
    showError(null);
  } catch (e) {
    if (ticket !== state.request) return;
    showError(e.message);
  }
  drawBoard();
  renderAnalysis();
  announce();
  // The table answers now, not after the best line, which it does not need; nor does anyone
  // once the table has moved.
  const tableMoves = maybeTableMoves();
  const a = state.analysis;
  if (!tableMoves && a && a.moves && a.dtm !== null && a.moves.length && !ruledHere(a)) {
    try {
      const line = await api(`/api/${state.game}/mainline`, params);
      if (ticket !== state.request) return;
      state.line = line;
      renderLine();
    } catch (e) {
      if (ticket === state.request) showError(e.message);
    }
  }
}

/// Shows the side to move of the position shown (beside the board and in the editor's menu),
/// and whether Back and Forward lead anywhere.
function showToMove(fen) {
  const g = GAMES[state.game];
  const side = sideToMove(fen);
  const name = g.sides[side];
  $("to-move-text").textContent = `${name[0].toUpperCase()}${name.slice(1)} to move`;
  $("to-move-dot").style.background = side === 0 ? (state.game === "chess" ? "#fff" : "#b3261e") : "#111";
  $("edit-side").value = String(side);
  const [back, forward] = [$("back"), $("forward")];
  back.disabled = state.cursor === 0;
  forward.disabled = state.cursor >= state.history.length - 1;
  // A button disabled under the keyboard's focus hands it to the other, or to the board.
  for (const [button, other] of [[back, forward], [forward, back]]) {
    if (button.disabled && document.activeElement === button) (other.disabled ? $("board") : other).focus();
  }
}

/// An error beside the board, as a sentence; a command it names to run (the one that builds a
/// missing table) is set apart on a line of its own, to copy whole.
function showError(message) {
  const box = $("error");
  box.hidden = !message;
  box.replaceChildren();
  if (!message) return;
  const text = message[0].toUpperCase() + message.slice(1);
  const lead = " with: ";
  const at = text.lastIndexOf(`${lead}egtb `);
  if (at < 0) {
    box.textContent = text;
    return;
  }
  const command = document.createElement("code");
  command.textContent = text.slice(at + lead.length);
  box.append(text.slice(0, at + lead.length), command);
}

function renderAnalysis() {
  const a = state.analysis;
  const body = $("moves").tBodies[0];
  body.replaceChildren();
  $("line").replaceChildren();
  // No heading over a line that cannot be: no position, an error, or a game that has ended
  // (mated, or lost by a ruling though moves remain).
  $("line-heading").hidden = !(a && a.moves && a.moves.length) || ruledHere(a);
  noteHiddenAnswers();
  if (!a) {
    $("verdict").textContent = "";
    $("verdict").className = "";
    return;
  }
  if (a.ended === "no_pieces") {
    $("verdict").textContent = `${title(sideToMove(a.fen))} has no pieces left: the game is over`;
    $("verdict").className = "loss";
    return;
  }
  // A game ended on the board says how, as the banner under the board does.
  const how = a.moves.length === 0 && (a.checkmate ? "checkmate" : a.stalemate ? "stalemate" : "");
  // A distance and its unit kept on one line: "(1 ply)", "(27 plies)".
  const verdict = a.verdict.replace(/(\d) (pl(?:y|ies)\b)/g, "$1\u00a0$2");
  $("verdict").textContent = how ? `${verdict} (${how})` : verdict;
  $("verdict").className = a.category;
  if (a.dtm === null && a.moves.length) {
    // As `egtb line` says it: a draw that has not ended has no line to play out.
    $("line").textContent = "No forced line: neither side can force the end of the game.";
  }
  // A game lost by a ruling is over as at a mate: its moves are listed, not played.
  const over = ruledHere(a);
  if (over) $("line").textContent = "The game is over: these moves are listed for analysis only.";
  for (const move of a.moves) {
    const category = moverCategory(move);
    const row = document.createElement("tr");
    row.className = `move ${category}`;
    row.dataset.uci = move.uci;
    row.dataset.category = category;
    const coords = move.uci === move.san ? "" : move.uci;
    for (const [cls, text] of [["name", move.san], ["coords", coords], ["outcome", describe(move)]]) {
      const cell = document.createElement("td");
      cell.className = cls;
      cell.textContent = text;
      row.appendChild(cell);
    }
    if (!over) {
      row.tabIndex = 0;
      row.addEventListener("click", () => personMoves(move));
      onEnter(row, () => personMoves(move));
    }
    body.appendChild(row);
  }
}

/// Playing, or about to play a practice position, with the answers hidden: the analysis and the
/// arrows give way, and the Analysis tab says why, where it would be blank.
function noteHiddenAnswers() {
  // refresh() forgets the practice position once another is shown.
  const hidden = (state.playing || state.practice !== null) && !state.showAnswers;
  document.body.classList.toggle("hidden-answers", hidden);
  $("answers-hidden").hidden = !(hidden && state.tab === "analysis");
}

/// The best line as a game score, numbered from the position's move number: the first side's
/// move opens a number, and a line that the second side starts opens with one and "..." ("40...").
/// A move shows its position when clicked; its coordinates and the DTM after it show on hover.
function renderLine() {
  // No line: what renderAnalysis wrote in its place (a draw's note, a game's end) stays.
  if (!state.line) return;
  const score = $("line");
  score.replaceChildren();
  const offset = sideToMove(state.line.fen);
  const first = moveNumber(state.line.fen);
  state.line.mainline.forEach((step, i) => {
    const ply = i + offset;
    if (ply % 2 === 0 || i === 0) {
      const number = document.createElement("span");
      number.className = "line-number";
      number.textContent = `${Math.floor(ply / 2) + first}${ply % 2 === 0 ? "." : "..."}`;
      // A no-break space keeps the number with its move.
      score.append(number, "\u00a0");
    }
    const move = document.createElement("span");
    move.className = "line-step";
    move.textContent = step.san;
    move.title = step.dtm === null ? step.uci : `${step.uci}, DTM ${Math.abs(step.dtm)} after it`;
    move.tabIndex = 0;
    move.addEventListener("click", () => followLine(i));
    onEnter(move, () => followLine(i));
    score.append(move, " ");
  });
  const end = lineEnd(state.line);
  if (end) {
    const note = document.createElement("span");
    note.className = "line-end";
    note.textContent = end;
    score.append(note);
  }
}

/// How the best line ends, after its last move: "(stalemate: red wins)"; nothing for a line
/// that does not end the game.
function lineEnd(line) {
  const how = {
    checkmate: "checkmate",
    stalemate: "stalemate",
    no_pieces: "no pieces left",
    ruling: line.ruling ? `${line.ruling.reason}, by the rules` : "by the rules",
  }[line.ending];
  if (!how) return "";
  return `(${how}${line.winner ? `: ${line.winner} wins` : ""})`;
}

/// Runs `action` when Enter or Space is pressed on `element`, as a click would: listed moves
/// and the best line's moves are played from the keyboard too.
function onEnter(element, action) {
  element.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" && event.key !== " ") return;
    event.preventDefault();
    action();
  });
}

function title(side) {
  const name = GAMES[state.game].sides[side];
  return name[0].toUpperCase() + name.slice(1);
}

/// Whether the position analysed is itself lost by a ruling (xiangqi's Asian rules): the game
/// ends there as at a mate.
function ruledHere(a) {
  return Boolean(a && a.ruling && withoutClocks(a.ruling.position) === withoutClocks(a.fen));
}

/// Announces the end of the game, and in play mode a drawn position.
function announce() {
  const a = state.analysis;
  let text = "";
  if (a && a.ended === "no_pieces") {
    text = `Game over: ${title(sideToMove(a.fen))} has no pieces left. ${title(1 - sideToMove(a.fen))} wins.`;
  } else if (ruledHere(a)) {
    const side = sideToMove(a.fen);
    const { reason, order } = a.ruling;
    text = `Game over: ${title(side)} has lost by the rules (${reason}, order ${order}). ${title(1 - side)} wins.`;
  } else if (a && a.moves && a.moves.length === 0) {
    const side = sideToMove(a.fen);
    const how = a.checkmate ? "checkmate" : a.stalemate ? "stalemate" : "no legal move";
    const result = a.category === "draw" ? "Draw." : `${title(1 - side)} wins.`;
    text = `Game over: ${how}. ${result}`;
  } else if (a && state.playing && a.category === "draw") {
    text = "Game over: a drawn position is reached; neither side can force a result. Draw.";
  }
  // In play, the Play panel's status says it too: the banner under the board then stays silent
  // (set before its text changes) and hidden while that panel is open, so that the end is heard
  // and seen once; a text that has not changed is left alone, lest it be heard again.
  const toPlayStatus = Boolean(text) && state.playing;
  const heardThere = toPlayStatus && !$("tab-play").hidden;
  $("announce").setAttribute("aria-live", heardThere ? "off" : "polite");
  $("announce").hidden = heardThere;
  if ($("announce").textContent !== text) $("announce").textContent = text;
  if (toPlayStatus && $("play-status").textContent !== text) $("play-status").textContent = text;
}

// ----- moves -----------------------------------------------------------------------------

/// A move the person chose from the list or by the suggestion: played unless the table is to
/// move in play mode.
function personMoves(move) {
  if (mayMove()) playMove(move);
}

/// Where a move was chosen from the keyboard in a list that is drawn again (the moves, the best
/// line, the promotion's pieces) or by the suggestion (disabled until the next analysis), the
/// focus goes to the board, not back to the page's top.
function keepFocusOnBoard() {
  const focused = document.activeElement;
  if (focused && focused.closest && focused.closest("#moves, #line, #promotion, #suggest")) $("board").focus();
}

function playMove(move, table = false) {
  keepFocusOnBoard();
  hidePromotion();
  if (table) $("play-status").textContent = `The table played ${move.san}.`;
  state.answer = true;
  state.history = state.history.slice(0, state.cursor + 1);
  state.history.push({ fen: move.fen, move, table });
  state.cursor++;
  state.selected = null;
  refresh();
}

/// Steps back (-1) or forward (1) through the moves played. While playing, the step goes to the
/// person's previous or next turn, so Back takes back the table's answer with the move it
/// answered; the table does not answer a position stepped to, or Back could never undo it.
function navigate(direction) {
  keepFocusOnBoard();
  const inside = (i) => i >= 0 && i < state.history.length;
  let to = state.cursor + direction;
  if (!inside(to)) return;
  if (state.playing) {
    let turn = to;
    while (inside(turn) && sideToMove(state.history[turn].fen) !== state.playSide) turn += direction;
    if (inside(turn)) to = turn;
  }
  state.cursor = to;
  state.answer = false;
  state.selected = null;
  refresh();
}

function followLine(index) {
  if (!mayMove()) return;
  keepFocusOnBoard();
  const steps = state.line.mainline.slice(0, index + 1);
  state.history = state.history.slice(0, state.cursor + 1);
  for (const step of steps) state.history.push({ fen: step.fen, move: step });
  state.cursor = state.history.length - 1;
  state.answer = true;
  refresh();
}

function legalFrom(square) {
  const a = state.analysis;
  if (!a || !a.moves || a.fen !== currentFen() || ruledHere(a)) return [];
  return a.moves.filter((m) => m.uci.slice(0, 2) === square);
}

/// A click (or the end of a drag) on a square: select a piece, or move the selected one.
function squareClicked(name) {
  if (state.tab === "edit") {
    editSquare(name);
    return;
  }
  if (state.playing && sideToMove(currentFen()) !== state.playSide) return;
  hidePromotion();
  if (state.selected && state.selected !== name) {
    const moves = legalFrom(state.selected).filter((m) => m.uci.slice(2, 4) === name);
    if (moves.length === 1) {
      playMove(moves[0]);
      return;
    }
    if (moves.length > 1) {
      choosePromotion(moves);
      return;
    }
  }
  state.selected = legalFrom(name).length && state.selected !== name ? name : null;
  drawBoard();
}

const PROMOTIONS = { q: "Queen", r: "Rook", b: "Bishop", n: "Knight" };

/// A pawn's move to the last rank: the person picks the piece, queen first; a click on the
/// board or Escape gives the move up.
function choosePromotion(moves) {
  const box = $("promotion");
  const order = Object.keys(PROMOTIONS);
  const label = document.createElement("span");
  label.textContent = "Promote to";
  box.replaceChildren(label);
  for (const move of [...moves].sort((a, b) => order.indexOf(a.uci[4]) - order.indexOf(b.uci[4]))) {
    const piece = move.uci[4];
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.promotion = piece;
    // The piece in the promoting side's colour: white promotes on the eighth rank.
    const glyph = document.createElement("span");
    glyph.className = `glyph ${move.uci[3] === "8" ? "white" : "black"}`;
    glyph.textContent = GAMES.chess.glyphs[piece.toUpperCase()];
    button.append(glyph, ` ${PROMOTIONS[piece]}`);
    button.addEventListener("click", () => playMove(move));
    box.append(button);
  }
  box.hidden = false;
  box.querySelector("button").focus();
}

function hidePromotion() {
  $("promotion").hidden = true;
}

function squareFromEvent(event) {
  const target = document.elementFromPoint(event.clientX, event.clientY);
  return target && target.dataset ? target.dataset.square : null;
}

function setupPointer() {
  const svg = $("board");
  let dragFrom = null;
  svg.addEventListener("pointerdown", (event) => {
    const name = squareFromEvent(event);
    if (!name) return;
    dragFrom = name;
  });
  svg.addEventListener("pointerup", (event) => {
    const name = squareFromEvent(event);
    if (!name) return;
    if (dragFrom && dragFrom !== name && state.tab !== "edit") {
      state.selected = dragFrom;
    }
    dragFrom = null;
    squareClicked(name);
  });
}

/// In play mode, the table answers when the person's opponent is to move (not while the editor
/// is open: it answers once the editor is left). Returns whether it is about to move.
function maybeTableMoves() {
  const a = state.analysis;
  if (!state.playing || !a || !a.moves || a.fen !== currentFen() || state.tab === "edit") return false;
  if (a.moves.length === 0 || a.category === "draw" || ruledHere(a)) return false;
  if (sideToMove(a.fen) === state.playSide) {
    // The table's move stays named until the person moves, stepping back and forth too.
    const { move, table } = state.history[state.cursor];
    $("play-status").textContent = table ? `The table played ${move.san}. Your move.` : "Your move.";
    return false;
  }
  if (!state.answer) {
    $("play-status").textContent = "The table is to move: Start to have it answer.";
    return false;
  }
  $("play-status").textContent = "The table is thinking...";
  setTimeout(() => {
    if (state.analysis === a && state.playing && state.tab !== "edit") playMove(a.moves[0], true);
  }, TABLE_MOVE_DELAY_MS);
  return true;
}

// ----- editor ----------------------------------------------------------------------------

function buildPalette() {
  const g = GAMES[state.game];
  const palette = $("palette");
  palette.replaceChildren();
  const letters = [...g.kinds, ...g.kinds.toLowerCase()];
  for (const piece of letters) {
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.piece = piece;
    button.title = piece;
    button.setAttribute("aria-label", pieceName(piece));
    button.setAttribute("aria-pressed", String(state.editPiece === piece));
    button.textContent = state.letters ? piece : glyph(piece);
    // Drawn as on the board: chess's white outlined in black, the red pieces red.
    const first = piece === piece.toUpperCase();
    button.classList.add(first ? (state.game === "chess" ? "white" : "red") : "black");
    if (state.editPiece === piece) button.classList.add("active");
    button.addEventListener("click", () => {
      state.editPiece = state.editPiece === piece ? null : piece;
      const focused = document.activeElement === button;
      buildPalette();
      if (focused) palette.querySelector(`button[data-piece="${piece}"]`).focus();
    });
    palette.appendChild(button);
    // Each side's pieces on a row of their own.
    if (piece === g.kinds[g.kinds.length - 1]) {
      const rowEnd = document.createElement("span");
      rowEnd.className = "row-end";
      palette.appendChild(rowEnd);
    }
  }
  const side = $("edit-side");
  fillSides(side);
  side.value = String(sideToMove(currentFen()));
}

function setPosition(fen) {
  state.answer = true;
  state.history = state.history.slice(0, state.cursor + 1);
  state.history.push({ fen, move: null });
  state.cursor = state.history.length - 1;
  state.selected = null;
  refresh();
}

function editSquare(name) {
  stopForEdit();
  const grid = parseBoard(currentFen(), state.game);
  const s = squareAt(name, state.game);
  const here = grid[s.row][s.file];
  grid[s.row][s.file] = state.editPiece && here !== state.editPiece ? state.editPiece : null;
  setPosition(formatPosition(grid, sideToMove(currentFen()), state.game));
}

// ----- statistics and practice -----------------------------------------------------------

/// Lists the materials of the game's tables (under the rules chosen) in the statistics' and
/// the practice's menus, the board's material chosen. The menus are filled from the last call's
/// listing alone, once, however many calls overlap (two tabs opened in a row).
async function loadMaterials() {
  const selects = [$("stats-material"), $("random-material")];
  for (const select of selects) select.replaceChildren();
  const ticket = ++state.materialsRequest;
  try {
    const listing = await api("/api/tables", new URLSearchParams());
    if (ticket !== state.materialsRequest) return;
    const wanted = Object.entries(state.options);
    const materials = listing.tables
      .filter((t) => t.game === state.game && wanted.every(([k, v]) => t.rules[k] === v))
      .map((t) => t.material);
    for (const select of selects) select.replaceChildren(...materials.map((m) => new Option(m, m)));
    // The material the person chose stays chosen; else the board's comes first to mind.
    const here = state.analysis && state.analysis.material;
    for (const select of selects) {
      const listed = (m) => [...select.options].some((o) => o.value === m);
      const chosen = state.chosenMaterial[select.id];
      if (listed(chosen)) select.value = chosen;
      else if (listed(here)) select.value = here;
    }
    // The rule options chosen, spelled as the missing table's own error spells them: without
    // them the command would build tables under other rules.
    const flags = RULES[state.game].map(({ name }) => ` --${name} ${state.options[name]}`).join("");
    const none = selects[0].options.length
      ? ""
      : `No ${state.game} tables with these rules in the server's folder; build one with: egtb generate ${state.game} <material>${flags} ${listing.tables_option}`;
    // Statistics or a practice position shown stay; a note that no table was listed goes.
    for (const note of [$("stats-result"), $("random-status")]) {
      if (none || (state.noTablesNote && note.textContent === state.noTablesNote)) note.textContent = none;
    }
    state.noTablesNote = none;
  } catch (e) {
    if (ticket === state.materialsRequest) showError(e.message);
  }
}

/// Loads a random position of the chosen material, side to move and outcome, for the person to
/// play from that side.
async function randomPosition() {
  const material = $("random-material").value;
  if (!material) return;
  const params = optionsQuery();
  const side = Number($("random-side").value);
  params.set("side", GAMES[state.game].sides[side]);
  params.set("outcome", $("random-outcome").value);
  const ticket = ++state.randomRequest;
  const shown = state.request;
  try {
    const position = await api(`/api/${state.game}/random/${encodeURIComponent(material)}`, params);
    // Dropped when asked for again, or when the board changed meanwhile (a move, a position
    // loaded, a game started): the person has moved on.
    if (ticket !== state.randomRequest || shown !== state.request) return;
    state.playing = false;
    $("play-status").textContent = "";
    $("play-side").value = String(side);
    const outcome = $("random-outcome").selectedOptions[0].textContent;
    $("random-status").textContent = `${position.material}: ${title(side)} to move ${outcome}. Start to play it against the table (Show answers shows its moves).`;
    setPosition(position.fen);
    state.practice = state.history[state.cursor];
    noteHiddenAnswers();
  } catch (e) {
    if (ticket === state.randomRequest && shown === state.request) $("random-status").textContent = e.message;
  }
}

/// Drops the statistics and the practice position asked for under a game or rules no longer
/// chosen: shown, or answering late, they would be another board's.
function forgetTableAnswers() {
  state.statsRequest++;
  state.randomRequest++;
  state.chosenMaterial = {};
  $("stats-result").replaceChildren();
  $("random-status").textContent = "";
}

/// Shows the statistics of the chosen material: only the last asked for, an earlier answer
/// arriving late being dropped, and a note while they are computed (seconds for a large table).
async function showStats() {
  const material = $("stats-material").value;
  const out = $("stats-result");
  const ticket = ++state.statsRequest;
  out.replaceChildren();
  if (!material) return;
  out.textContent = `Computing the statistics of ${material}...`;
  try {
    const stats = await api(`/api/${state.game}/stats/${encodeURIComponent(material)}`, optionsQuery());
    if (ticket !== state.statsRequest) return;
    const table = document.createElement("table");
    table.id = "stats-table";
    const head = table.insertRow();
    for (const h of ["to move", "legal", "win", "draw", "loss", "longest"]) {
      const th = document.createElement("th");
      th.textContent = h;
      head.appendChild(th);
    }
    // A share rounded to 0.0% or 100.0% says none or all: a few positions, or all but a few,
    // read "<0.1%" and ">99.9%".
    const percent = (n, total) => {
      const text = total ? ((100 * n) / total).toFixed(1) : "0.0";
      if (n > 0 && text === "0.0") return "<0.1";
      if (n < total && text === "100.0") return ">99.9";
      return text;
    };
    for (const [side, s] of Object.entries(stats.sides)) {
      const row = table.insertRow();
      row.insertCell().textContent = side;
      row.insertCell().textContent = s.legal.toLocaleString("en");
      for (const k of ["win", "draw", "loss"]) {
        const cell = row.insertCell();
        cell.className = k;
        cell.textContent = `${s[k].toLocaleString("en")} (${percent(s[k], s.legal)}%)`;
      }
      const cell = row.insertCell();
      if (s.longest) {
        const count = s.longest.positions.toLocaleString("en");
        const text = `${s.longest.dtm} ${s.longest.dtm === 1 ? "ply" : "plies"} (${count} ${s.longest.positions === 1 ? "position" : "positions"}): open`;
        cell.appendChild(openButton("open-longest", s.longest.position, text));
      } else {
        cell.textContent = "-";
      }
    }
    const caption = document.createElement("p");
    caption.textContent = `${stats.game} ${stats.material}: positions by side to move (the longest is the longest win or loss)`;
    out.replaceChildren(caption, table, ...ruledLost(stats));
  } catch (e) {
    if (ticket === state.statsRequest) out.textContent = e.message;
  }
}

/// A button of the statistics that opens position `fen` on the board for analysis.
function openButton(className, fen, text) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = className;
  button.dataset.fen = fen;
  button.textContent = text;
  button.addEventListener("click", () => {
    switchTab("analysis");
    $("board").focus();
    setPosition(fen);
  });
  return button;
}

/// The positions lost by the rules' rulings (xiangqi's Asian rules), per side to move and
/// reason, each with an example that opens on the board; nothing where no ruling applies.
function ruledLost(stats) {
  const items = [];
  for (const [side, s] of Object.entries(stats.sides)) {
    for (const [reason, r] of Object.entries(s.ruled_lost || {})) {
      if (!r.count) continue;
      const item = document.createElement("li");
      item.append(`${side} to move, ${reason.replace("_", " ")}: ${r.count.toLocaleString("en")} `);
      item.appendChild(openButton("open-ruled", r.position, "open an example"));
      items.push(item);
    }
  }
  if (!items.length) return [];
  const rounds = `${stats.rounds} ${stats.rounds === 1 ? "round" : "rounds"}`;
  const heading = document.createElement("p");
  heading.textContent = `Lost by the rules' rulings (${rounds}), counted in the losses above:`;
  const list = document.createElement("ul");
  list.id = "stats-ruled";
  list.append(...items);
  return [heading, list];
}

// ----- page ------------------------------------------------------------------------------

function switchTab(tab) {
  const left = state.tab;
  state.tab = tab;
  for (const b of document.querySelectorAll("#tabs button")) {
    const active = b.dataset.tab === tab;
    b.classList.toggle("active", active);
    b.setAttribute("aria-selected", String(active));
    // One stop in the tab order for the tabs: the open one (the arrow keys reach the others).
    b.tabIndex = active ? 0 : -1;
  }
  for (const t of ["analysis", "play", "edit", "stats"]) $(`tab-${t}`).hidden = t !== tab && !(t === "analysis" && tab === "play");
  if (tab === "edit") buildPalette();
  if (tab === "stats" || tab === "play") loadMaterials();
  noteHiddenAnswers();
  // The banner under the board shows the end of a game again where the Play panel no longer does.
  announce();
  state.selected = null;
  drawBoard();
  // Left without an edit, a game goes on: the table answers if it is to move.
  if (left === "edit" && tab !== "edit") maybeTableMoves();
}

/// An edit of the position: a game in play stops first, lest the table answer an edit.
function stopForEdit() {
  if (!state.playing) return;
  state.playing = false;
  $("play-status").textContent = "Stopped: the editor changes the position.";
}

function buildRuleOptions() {
  const span = $("rule-options");
  span.replaceChildren();
  for (const { name, values, default: fallback } of RULES[state.game]) {
    const label = document.createElement("label");
    label.textContent = `${name} `;
    const select = document.createElement("select");
    select.id = `option-${name}`;
    for (const v of values) {
      const option = document.createElement("option");
      option.value = v;
      option.textContent = v;
      select.appendChild(option);
    }
    select.value = values.includes(state.options[name]) ? state.options[name] : fallback;
    state.options[name] = select.value;
    select.addEventListener("change", () => {
      state.options[name] = select.value;
      forgetTableAnswers();
      refresh();
      if (state.tab === "stats" || state.tab === "play") loadMaterials();
    });
    label.appendChild(select);
    span.appendChild(label);
  }
  for (const side of [$("play-side"), $("random-side")]) fillSides(side);
}

function setGame(game, fen) {
  state.game = game;
  state.options = Object.fromEntries(
    Object.entries(state.options).filter(([k]) => RULES[game].some((o) => o.name === k)),
  );
  state.history = [{ fen: fen || GAMES[game].start, move: null }];
  state.cursor = 0;
  state.editFocus = null;
  state.playing = false;
  // The last game's play status ("Your move.") would outlive its game.
  $("play-status").textContent = "";
  forgetTableAnswers();
  $("game").value = game;
  buildRuleOptions();
  if (state.tab === "edit") buildPalette();
  if (state.tab === "stats" || state.tab === "play") loadMaterials();
  refresh();
}

function updateUrl() {
  const params = optionsQuery();
  params.set("game", state.game);
  params.set("fen", currentFen());
  if (state.flipped) params.set("flip", "1");
  history.replaceState(null, "", `/?${params.toString()}`);
}

async function init() {
  try {
    const { games } = await api("/api/games", new URLSearchParams());
    for (const g of games) RULES[g.game] = g.options;
  } catch (e) {
    showError(`The server's rule options could not be read: ${e.message}`);
  }
  const params = new URLSearchParams(location.search);
  const named = params.get("game");
  const game = Object.hasOwn(GAMES, named) ? named : gameOfFen(params.get("fen") || "") || "chess";
  for (const { name } of RULES[game]) {
    if (params.get(name)) state.options[name] = params.get(name);
  }
  state.flipped = params.get("flip") === "1";
  $("game").addEventListener("change", () => setGame($("game").value));
  $("letters").addEventListener("change", () => {
    state.letters = $("letters").checked;
    drawBoard();
    if (state.tab === "edit") buildPalette();
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && (!$("promotion").hidden || state.selected)) {
      if ($("promotion").contains(document.activeElement)) $("board").focus();
      hidePromotion();
      state.selected = null;
      drawBoard();
      return;
    }
    // On the tabs the arrow keys go from tab to tab, Home and End to the first and the last.
    const modified = event.altKey || event.ctrlKey || event.metaKey;
    if (event.target.getAttribute && event.target.getAttribute("role") === "tab" && !modified) {
      const tabs = [...document.querySelectorAll("#tabs button")];
      const at = tabs.indexOf(event.target);
      const to = { ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: tabs.length - 1 }[event.key];
      if (to === undefined) return;
      event.preventDefault();
      const next = tabs[(to + tabs.length) % tabs.length];
      next.focus();
      next.click();
      return;
    }
    // In the editor they go from square to square.
    if (state.tab === "edit" && event.target.classList && event.target.classList.contains("square")) {
      if (!modified && editorArrow(event)) return;
    }
    // The arrow keys step back and forward through the moves, except where they edit or choose.
    const target = event.target.tagName;
    if (["INPUT", "SELECT", "TEXTAREA"].includes(target) || modified) return;
    const step = { ArrowLeft: "back", ArrowRight: "forward" }[event.key];
    if (step) {
      event.preventDefault();
      $(step).click();
    }
  });
  $("flip").addEventListener("click", () => {
    state.flipped = !state.flipped;
    updateUrl();
    drawBoard();
  });
  $("fen-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const fen = $("fen").value.trim();
    if (!fen) return;
    // A position of another game is read as the command line's query reads it: its ranks tell
    // the game, which the board switches to.
    const game = gameOfFen(fen);
    if (game && game !== state.game) {
      setGame(game, fen);
    } else {
      setPosition(fen);
    }
  });
  $("back").addEventListener("click", () => navigate(-1));
  $("forward").addEventListener("click", () => navigate(1));
  $("suggest").addEventListener("click", () => {
    const move = suggestedMove();
    if (move) personMoves(move);
  });
  for (const b of document.querySelectorAll("#tabs button")) b.addEventListener("click", () => switchTab(b.dataset.tab));
  $("play-start").addEventListener("click", () => {
    state.playing = true;
    state.practice = null;
    state.answer = true;
    state.playSide = Number($("play-side").value);
    $("play-status").textContent = "";
    refresh();
  });
  $("play-stop").addEventListener("click", () => {
    state.playing = false;
    $("play-status").textContent = "Stopped.";
    refresh();
  });
  $("show-answers").addEventListener("change", () => {
    state.showAnswers = $("show-answers").checked;
    renderAnalysis();
    renderLine();
    drawBoard();
  });
  $("edit-side").addEventListener("change", () => {
    stopForEdit();
    const grid = parseBoard(currentFen(), state.game);
    setPosition(formatPosition(grid, Number($("edit-side").value), state.game));
  });
  $("edit-clear").addEventListener("click", () => {
    stopForEdit();
    const g = GAMES[state.game];
    const grid = Array.from({ length: g.ranks }, () => Array(g.files).fill(null));
    setPosition(formatPosition(grid, sideToMove(currentFen()), state.game));
  });
  for (const id of ["stats-material", "random-material"]) {
    $(id).addEventListener("change", () => {
      state.chosenMaterial[id] = $(id).value;
    });
  }
  $("stats-show").addEventListener("click", showStats);
  $("random").addEventListener("click", randomPosition);
  setupPointer();
  setGame(game, params.get("fen"));
}

init();
