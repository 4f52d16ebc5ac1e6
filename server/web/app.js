// Tabula's web page: play Bi-litaire, Pylos and backgammon against the engine, and analyse.
//
// The page knows no rules. Every legal move, with the position it leads to, comes from the
// server (/api/{game}/moves, /api/backgammon/plays); a click narrows that list to the moves
// that begin with the cells clicked so far, and the moves that clicks cannot tell apart
// (announcements, take-backs, backgammon plays) are offered as a list. The engine answers
// through /api/{game}/best and /api/backgammon/evaluate. A busy server (503) is retried after
// its Retry-After.
'use strict';

// Script errors, for the browser test (scripts/web_e2e.py) to report.
window.tabulaErrors = [];
window.addEventListener('error', (e) => window.tabulaErrors.push(String(e.message)));
window.addEventListener('unhandledrejection', (e) => window.tabulaErrors.push(String(e.reason)));

const SVGNS = 'http://www.w3.org/2000/svg';
const $ = (id) => document.getElementById(id);

const GAMES = {
  bilitaire: {
    title: 'Bi-litaire',
    sides: [['ball', 'the ball player'], ['slider', 'the slider'], ['both', 'both sides (analysis)']],
    rules: [['standard', 'standard'], ['free-chains', 'free chains']],
    help: 'A Bi-litaire position string, e.g. --..o.--/--....--/......../..oo..../--..o.oo/--ooo.oo/oooooo--/oooooo-- s',
  },
  pylos: {
    title: 'Pylos',
    sides: [['black', 'black (moves first)'], ['white', 'white'], ['both', 'both sides (analysis)']],
    rules: [['standard', 'standard (squares)'], ['children', 'children (no take-backs)'], ['mature', 'mature (squares and lines)']],
    help: 'A Pylos position string (levels 0 to 3 separated by |), e.g. bwbw/..../..../....|.../.../...|../..|. b',
  },
  backgammon: {
    title: 'Backgammon',
    sides: [['white', 'white (home board bottom right)'], ['both', 'both sides (analysis)']],
    rules: [],
    help: 'A gnubg Position ID (4HPwATDgc/ABMA), gnubg ID (Position ID:Match ID) or XGID=…; the player on roll is yours.',
  },
};

const TIMES = [[100, '0.1 s a move'], [500, '0.5 s a move'], [2000, '2 s a move'], [8000, '8 s a move']];
const PLIES = [[0, '0-ply (fastest)'], [1, '1-ply'], [2, '2-ply (strongest)']];

const S = {
  game: 'bilitaire',
  gen: 0,            // bumped whenever the position changes: late answers are dropped
  abort: null,       // aborts the requests of the current generation
  limits: null,
  pos: null,         // the position string (backgammon: Position ID, player on roll's view)
  side: null,        // side to move (bilitaire: ball/slider; pylos: black/white; backgammon: white/black)
  moves: [],         // the API's legal moves, each with tokens (cells to click) and its position
  over: false,
  path: [],          // cells clicked so far
  past: [],          // snapshots for undo
  log: [],           // the move list
  thinking: false,
  last: [],          // cells of the last move
  dice: null,        // backgammon: the roll of the player on roll, e.g. "31"
  board: null,       // backgammon: the /plays answer
  analysis: null,
};

// ---------- small helpers ----------

class Stale extends Error {}

function sleep(ms) { return new Promise((resolve) => setTimeout(resolve, ms)); }

function el(name, attrs, parent) {
  const e = document.createElementNS(SVGNS, name);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

function setStatus(text, kind) {
  const s = $('status');
  s.textContent = text;
  s.className = kind || '';
}

let rngState = null;
function random() {
  if (rngState === null) {
    const seed = new URLSearchParams(location.search).get('seed');
    rngState = seed !== null ? (parseInt(seed, 10) >>> 0) : -1;
  }
  if (rngState < 0) {
    const a = new Uint32Array(1);
    crypto.getRandomValues(a);
    return a[0] / 4294967296;
  }
  // mulberry32: a seeded roll for reproducible games (?seed=N)
  rngState = (rngState + 0x6D2B79F5) >>> 0;
  let t = rngState;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
function die() { return 1 + Math.floor(random() * 6); }

// ---------- the API ----------

async function api(method, path, body) {
  const gen = S.gen;
  const signal = S.abort ? S.abort.signal : undefined;
  for (let attempt = 0; ; attempt++) {
    let res;
    try {
      res = await fetch(path, {
        method,
        headers: body ? { 'Content-Type': 'application/json' } : {},
        body: body ? JSON.stringify(body) : undefined,
        signal,
      });
    } catch (e) {
      if (gen !== S.gen) throw new Stale();
      throw new Error('the server cannot be reached (' + e.message + ')');
    }
    if (gen !== S.gen) throw new Stale();
    if (res.status === 503 && attempt < 60) {
      const wait = Math.min(30, Math.max(1, parseInt(res.headers.get('Retry-After') || '1', 10) || 1));
      setStatus(`Server busy, retrying in ${wait} s…`, 'busy');
      await sleep(wait * 1000);
      if (gen !== S.gen) throw new Stale();
      continue;
    }
    let data = null;
    try { data = await res.json(); } catch (e) { data = null; }
    if (gen !== S.gen) throw new Stale();
    if (!res.ok) {
      const msg = data && data.error ? data.error.message : `HTTP ${res.status}`;
      const err = new Error(msg);
      err.status = res.status;
      throw err;
    }
    return data;
  }
}

function newGeneration() {
  S.gen += 1;
  if (S.abort) S.abort.abort();
  S.abort = new AbortController();
  S.thinking = false;
}

function report(e) {
  if (e instanceof Stale) return;
  S.thinking = false;
  setStatus('Error: ' + e.message, 'error');
}

// ---------- settings ----------

function humanSide() { return $('side').value; }
function rulesQuery() {
  const q = {};
  if (S.game === 'bilitaire' || S.game === 'pylos') q.rules = $('rules').value;
  if (S.game === 'pylos') q.takeback = $('takeback').value;
  return q;
}
function enginesTurn() {
  const h = humanSide();
  return !S.over && h !== 'both' && S.side !== h;
}

function fillSelect(select, options, value) {
  select.textContent = '';
  for (const [v, label] of options) {
    const o = document.createElement('option');
    o.value = String(v);
    o.textContent = label;
    select.appendChild(o);
  }
  if (value !== undefined && options.some(([v]) => String(v) === String(value))) select.value = String(value);
}

function setupControls() {
  const g = GAMES[S.game];
  for (const b of document.querySelectorAll('#games button')) b.classList.toggle('active', b.dataset.game === S.game);
  fillSelect($('side'), g.sides);
  fillSelect($('rules'), g.rules);
  $('rules-label').classList.toggle('hidden', g.rules.length === 0);
  $('takeback-label').classList.toggle('hidden', S.game !== 'pylos');
  $('dice-row').classList.toggle('hidden', S.game !== 'backgammon');
  const lim = S.limits || { max_time_ms: 10000, max_plies: 2 };
  if (S.game === 'backgammon') {
    fillSelect($('strength'), PLIES.filter(([p]) => p <= lim.max_plies), Math.min(1, lim.max_plies));
  } else {
    const times = TIMES.filter(([t]) => t <= lim.max_time_ms);
    fillSelect($('strength'), times.length ? times : [[lim.max_time_ms, `${lim.max_time_ms} ms a move`]], 500);
  }
  $('position-help').textContent = g.help;
  document.title = `Tabula: ${g.title}`;
}

// ---------- moves as cells to click ----------

// The cells of a move in click order, and what clicks cannot express (shown in the list).
function tokensOf(game, mv) {
  if (game === 'bilitaire') {
    // xd4, d2-d4-f4, xB2, A2-C2, with an announcement !N
    const main = mv.split('!')[0];
    return main.replace(/^x/, '').split('-');
  }
  // pylos: 0b2, 0a1-1b2, then take-backs x1b2x0a1
  return mv.split('x')[0].split('-');
}

function candidates() {
  if (S.game === 'backgammon') return bgCandidates().map((c) => c.play);
  const p = S.path;
  return S.moves.filter((m) => p.every((t, i) => m.tokens[i] === t));
}

function nextTokens() {
  if (S.game === 'backgammon') return bgNext();
  const n = S.path.length;
  const next = new Set();
  for (const m of candidates()) if (m.tokens.length > n) next.add(m.tokens[n]);
  return next;
}

// Backgammon: the path is from, to, from, to… in the mover's numbering. A clicked (from, to)
// is one checker's move: one step of a play, or several steps of one checker in a row (24/20
// with 31 is 24/21/20 or 24/23/20 whichever the API listed).
function chains(rest, from) {
  // every (to, steps left) reachable from `from` by one checker through the steps in `rest`
  const out = [];
  rest.forEach((s, k) => {
    if (s.from !== from) return;
    const left = rest.slice(0, k).concat(rest.slice(k + 1));
    out.push({ to: s.to, left });
    if (s.to !== 0) for (const c of chains(left, s.to)) out.push(c);
  });
  return out;
}

function bgCandidates() {
  const out = [];
  for (const play of S.moves) {
    // every way of matching the clicked pairs, as the steps left over
    let states = [play.steps.slice()];
    for (let i = 0; i + 1 < S.path.length && states.length; i += 2) {
      const from = S.path[i], to = S.path[i + 1];
      states = states.flatMap((rest) => chains(rest, from).filter((c) => c.to === to).map((c) => c.left));
    }
    if (S.path.length % 2 === 1) states = states.filter((rest) => rest.some((s) => s.from === S.path[S.path.length - 1]));
    if (states.length) out.push({ play, states });
  }
  return out;
}

function bgNext() {
  const next = new Set();
  const odd = S.path.length % 2 === 1;
  const from = S.path[S.path.length - 1];
  for (const c of bgCandidates()) {
    for (const rest of c.states) {
      if (!odd) for (const s of rest) next.add(s.from);
      else for (const ch of chains(rest, from)) next.add(ch.to);
    }
  }
  return next;
}

function humanMayMove() {
  return !S.over && !S.thinking && !enginesTurn() && S.moves.length > 0;
}

function clickToken(tok) {
  if (!humanMayMove()) return;
  if (S.game === 'backgammon' && !S.dice) return;
  const next = nextTokens();
  if (S.path.length && S.path[S.path.length - 1] === tok) {
    S.path.pop();
  } else if (next.has(tok)) {
    S.path.push(tok);
  } else {
    S.path = [];
    if (nextTokens().has(tok)) S.path.push(tok);
  }
  const cands = candidates();
  const complete = S.game === 'backgammon' ? S.path.length >= 2 && S.path.length % 2 === 0 : S.path.length > 0;
  if (complete && cands.length === 1) {
    playMove(cands[0], 'you');
    return;
  }
  render();
}

// ---------- loading positions ----------

async function loadSolved(position) {
  const q = new URLSearchParams(rulesQuery());
  if (position) q.set('position', position);
  const r = await api('GET', `/api/${S.game}/moves?${q}`);
  S.pos = r.position;
  S.side = r.side_to_move;
  S.moves = r.moves.map((m) => ({ move: m.move, position: m.position, tokens: tokensOf(S.game, m.move) }));
  S.over = S.moves.length === 0;
  S.path = [];
  render();
  if (enginesTurn()) await engineSolved();
}

async function loadBackgammon(position) {
  const q = new URLSearchParams();
  q.set('position', position);
  if (S.dice) q.set('dice', S.dice);
  const r = await api('GET', `/api/backgammon/plays?${q}`);
  S.board = r;
  S.pos = r.position;
  S.dice = r.dice;
  S.over = r.game_over;
  S.moves = r.plays.map((p) => ({ move: p.play, position: p.position, steps: p.steps, tokens: [] }));
  S.path = [];
  render();
  if (enginesTurn()) await engineBackgammon();
}

function load(position) {
  const p = S.game === 'backgammon' ? loadBackgammon(position) : loadSolved(position);
  return p.catch(report);
}

function snapshot() {
  return { pos: S.pos, side: S.side, dice: S.dice, logLength: S.log.length, last: S.last };
}

function playMove(m, who) {
  S.past.push(snapshot());
  const label = S.game === 'backgammon' ? `${S.dice}: ${m.move || '(no play)'}` : m.move;
  S.log.push({ who, side: S.side, move: label });
  S.last = S.game === 'backgammon' ? [] : m.tokens;
  newGeneration();
  if (S.game === 'backgammon') {
    S.side = S.side === 'white' ? 'black' : 'white';
    S.dice = null;
  }
  return load(m.position);
}

function newGame() {
  newGeneration();
  S.past = [];
  S.log = [];
  S.last = [];
  S.analysis = null;
  $('eval').textContent = '—';
  $('analysis').textContent = '';
  if (S.game === 'backgammon') {
    let a = die();
    let b = die();
    while (a === b) { a = die(); b = die(); }
    S.side = a > b ? 'white' : 'black';
    S.dice = `${Math.max(a, b)}${Math.min(a, b)}`;
    S.log.push({ who: 'roll', side: '', move: `opening roll: white ${a}, black ${b}` });
    return load('4HPwATDgc/ABMA');
  }
  return load(null);
}

function undo() {
  if (!S.past.length) return;
  const h = humanSide();
  let k = S.past.length - 1;
  if (h !== 'both') {
    while (k >= 0 && S.past[k].side !== h) k -= 1;
    if (k < 0) return;
  }
  const snap = S.past[k];
  S.past.length = k;
  S.log.length = snap.logLength;
  S.last = snap.last;
  newGeneration();
  S.side = snap.side;
  S.dice = snap.dice;
  S.analysis = null;
  $('analysis').textContent = '';
  load(snap.pos);
}

async function loadPasted() {
  const text = $('position').value.trim();
  if (!text) return;
  newGeneration();
  try {
    if (S.game === 'backgammon') {
      const r = await api('GET', `/api/backgammon/plays?${new URLSearchParams({ position: text })}`);
      S.side = humanSide() === 'both' ? 'white' : humanSide();
      S.dice = r.dice;
      S.past = [];
      S.log = [{ who: 'set', side: '', move: `position ${r.position}` }];
      S.last = [];
      await loadBackgammon(r.position);
    } else {
      const q = new URLSearchParams(rulesQuery());
      q.set('position', text);
      await api('GET', `/api/${S.game}/moves?${q}`); // refused here, nothing is lost
      S.past = [];
      S.log = [{ who: 'set', side: '', move: 'position set' }];
      S.last = [];
      await loadSolved(text);
    }
    $('eval').textContent = '—';
    $('analysis').textContent = '';
  } catch (e) {
    report(e);
    if (!(e instanceof Stale)) { render(); setStatus('Position refused: ' + e.message, 'error'); }
  }
}

// ---------- the engine ----------

function budget() { return { time_ms: parseInt($('strength').value, 10) }; }
function plies() { return parseInt($('strength').value, 10); }

async function engineSolved() {
  S.thinking = true;
  render();
  const body = Object.assign({ position: S.pos, budget: budget() }, rulesQuery());
  const r = await api('POST', `/api/${S.game}/best`, body);
  S.thinking = false;
  showSolveEval(r, 'Engine');
  const m = S.moves.find((x) => x.move === r.best);
  if (!m) throw new Error(`the engine found no move (${r.best})`);
  await playMove(m, 'engine');
}

async function engineBackgammon() {
  S.thinking = true;
  if (!S.dice) {
    S.dice = `${die()}${die()}`;
    const q = new URLSearchParams({ position: S.pos, dice: S.dice });
    const r = await api('GET', `/api/backgammon/plays?${q}`);
    S.board = r;
    S.dice = r.dice;
    S.moves = r.plays.map((p) => ({ move: p.play, position: p.position, steps: p.steps, tokens: [] }));
  }
  render();
  const ev = await api('POST', '/api/backgammon/evaluate', { position: S.pos, dice: S.dice, plies: plies() });
  S.thinking = false;
  showBgEval(ev, 'Engine');
  const best = ev.plays && ev.plays.length ? ev.plays[0].play : '';
  const m = S.moves.find((x) => x.move === best);
  if (!m) throw new Error(`the engine's play ${best} is not in the list`);
  await playMove(m, 'engine');
}

function fmtTime(ms) { return ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${ms} ms`; }

function solvedValueText(r) {
  if (S.game === 'bilitaire') {
    if (r.value === null || r.value === undefined) {
      return r.lower !== undefined && r.lower !== null
        ? `${r.lower} to ${r.upper} balls left (not proven within the budget)`
        : 'not known within the budget';
    }
    if (r.exact) return `${r.value} balls left (exact)`;
    const b = r.lower !== undefined && r.lower !== null ? `, proven ${r.lower}…${r.upper}` : '';
    return `about ${r.value} balls left (estimate${b})`;
  }
  if (r.result === 'win' || r.result === 'loss') return `${r.result} in ${r.plies} plies${r.exact ? ' (exact)' : ''}`;
  if (r.result === 'draw') return 'draw';
  if (r.value === null || r.value === undefined) return 'not known within the budget (no forced win found)';
  return `unknown (estimate ${r.value}: no forced win or loss found within the budget)`;
}

function showSolveEval(r, who) {
  const lines = [
    `${who} (${r.side_to_move} to move): ${solvedValueText(r)}`,
    `best ${r.best || '—'}${r.pv && r.pv.length ? '   pv ' + r.pv.slice(0, 8).join(' ') : ''}`,
    `${r.depth ? 'depth ' + r.depth + ', ' : ''}${r.nodes} nodes, ${fmtTime(r.time_ms)}${r.stopped ? ', stopped by the budget' : ''}`,
  ];
  $('eval').textContent = lines.join('\n');
}

function pct(x) { return (100 * x).toFixed(1) + '%'; }
function eq(x) { return (x >= 0 ? '+' : '') + x.toFixed(3); }

function showBgEval(ev, who) {
  const p = ev.probabilities;
  const lines = [
    `${who} (${S.side} on roll, ${ev.plies}-ply): equity ${eq(ev.equity)}`,
    `win ${pct(p[0])} (gammon ${pct(p[1])}, bg ${pct(p[2])})  lose gammon ${pct(p[3])}`,
    `cube: ${ev.cube.action}  (no double ${eq(ev.cube.no_double)}, double/take ${eq(ev.cube.double_take)}, double/pass ${eq(ev.cube.double_pass)})`,
  ];
  if (ev.dice) {
    const best = ev.plays && ev.plays.length ? ev.plays[0] : null;
    lines.push(best ? `${ev.dice}: best ${best.play} (equity ${eq(best.equity)})` : `${ev.dice}: no legal play`);
  }
  $('eval').textContent = lines.join('\n');
}

async function analyse() {
  if (S.over || !S.pos) return;
  setStatus('Analysing…', 'busy');
  try {
    if (S.game === 'backgammon') {
      const body = { position: S.pos, plies: plies() };
      if (S.dice) body.dice = S.dice;
      const ev = await api('POST', '/api/backgammon/evaluate', body);
      showBgEval(ev, 'Analysis');
      S.analysis = (ev.plays || []).map((p) => ({ move: p.play, value: eq(p.equity) }));
    } else {
      const body = Object.assign({ position: S.pos, budget: budget() }, rulesQuery());
      const r = await api('POST', `/api/${S.game}/analyze`, body);
      showSolveEval(r, 'Analysis');
      S.analysis = r.moves.map((m) => ({
        move: m.move,
        value: m.value === null || m.value === undefined
          ? (m.bound === null || m.bound === undefined ? '?' : `bound ${m.bound}`)
          : (S.game === 'pylos' ? `${m.result}${m.plies !== null && m.plies !== undefined ? ' ' + m.plies : ''}` : `${m.value} balls`),
      }));
    }
    render();
  } catch (e) { report(e); }
}

// ---------- drawing ----------

function render() {
  const svg = $('board');
  svg.textContent = '';
  svg.dataset.game = S.game;
  const next = humanMayMove() && (S.game !== 'backgammon' || S.dice) ? nextTokens() : new Set();
  if (S.game === 'bilitaire') drawBilitaire(svg, next);
  else if (S.game === 'pylos') drawPylos(svg, next);
  else drawBackgammon(svg, next);
  for (const e of svg.querySelectorAll('[data-tok]')) {
    e.addEventListener('click', (ev) => { ev.stopPropagation(); clickToken(decodeTok(e.dataset.tok)); });
  }
  renderPanel(next);
}

function decodeTok(t) { return S.game === 'backgammon' ? parseInt(t, 10) : t; }

function mark(e, tok, next) {
  if (tok === null || tok === undefined) return;
  e.setAttribute('data-tok', String(tok));
  const cls = ['tok'];
  if (S.path.includes(tok)) cls.push('sel');
  else if (next.has(tok)) cls.push('next');
  else if (S.last.includes(tok)) cls.push('last');
  e.setAttribute('class', cls.join(' '));
}

function defs(svg, balls) {
  const d = el('defs', {}, svg);
  for (const [id, inner, outer] of balls) {
    const g = el('radialGradient', { id, cx: '35%', cy: '35%', r: '70%' }, d);
    el('stop', { offset: '0%', 'stop-color': inner }, g);
    el('stop', { offset: '100%', 'stop-color': outer }, g);
  }
}

function text(svg, x, y, s, attrs) {
  const t = el('text', Object.assign({ x, y, 'font-size': 12, 'text-anchor': 'middle', fill: '#444', 'font-family': 'sans-serif' }, attrs || {}), svg);
  t.textContent = s;
  return t;
}

function drawBilitaire(svg, next) {
  const C = 50, M = 26, N = 8 * C;
  svg.setAttribute('width', N + 2 * M);
  svg.setAttribute('height', N + 2 * M);
  svg.setAttribute('viewBox', `0 0 ${N + 2 * M} ${N + 2 * M}`);
  defs(svg, [['ball', '#ffffff', '#6d7d8c']]);
  el('rect', { x: M - 4, y: M - 4, width: N + 8, height: N + 8, rx: 8, fill: '#3d5a6c' }, svg);
  const [board] = S.pos.split(' ');
  const rows = board.split('/'); // rank 8 first
  const cell = (f, r) => rows[7 - r][f];
  for (let F = 0; F < 4; F++) {
    for (let R = 0; R < 4; R++) {
      const present = cell(2 * F, 2 * R) !== '-';
      const rect = el('rect', {
        x: M + F * 2 * C + 3, y: M + (3 - R) * 2 * C + 3, width: 2 * C - 6, height: 2 * C - 6, rx: 7,
        fill: present ? '#d9b382' : '#4a6b7e', stroke: present ? '#8a6a3a' : '#6f8fa2',
        'stroke-dasharray': present ? '' : '5 4',
      }, svg);
      mark(rect, 'ABCD'[F] + (R + 1), next);
    }
  }
  for (let f = 0; f < 8; f++) {
    for (let r = 0; r < 8; r++) {
      const c = cell(f, r);
      if (c === '-') continue;
      const cx = M + f * C + C / 2, cy = M + (7 - r) * C + C / 2;
      const e = c === 'o'
        ? el('circle', { cx, cy, r: C * 0.38, fill: 'url(#ball)', stroke: '#39444f' }, svg)
        : el('circle', { cx, cy, r: C * 0.28, fill: '#6b4f2a', stroke: '#4a3519' }, svg);
      mark(e, 'abcdefgh'[f] + (r + 1), next);
    }
  }
  for (let i = 0; i < 8; i++) {
    text(svg, M + i * C + C / 2, N + 2 * M - 6, 'abcdefgh'[i]);
    text(svg, 10, M + (7 - i) * C + C / 2 + 4, String(i + 1));
  }
  for (let i = 0; i < 4; i++) {
    text(svg, M + i * 2 * C + C, 14, 'ABCD'[i], { 'font-weight': 'bold' });
    text(svg, N + 2 * M - 10, M + (3 - i) * 2 * C + C + 4, String(i + 1), { 'font-weight': 'bold' });
  }
}

function drawPylos(svg, next) {
  const s = 86, M = 22, N = 4 * s, W = N + 2 * M + 150;
  svg.setAttribute('width', W);
  svg.setAttribute('height', N + 2 * M);
  svg.setAttribute('viewBox', `0 0 ${W} ${N + 2 * M}`);
  defs(svg, [['pb', '#777777', '#111111'], ['pw', '#ffffff', '#c9c0a8']]);
  el('rect', { x: 4, y: 4, width: N + 2 * M - 8, height: N + 2 * M - 8, rx: 18, fill: '#c9a46a', stroke: '#8a6a3a', 'stroke-width': 3 }, svg);
  const [levels, side] = S.pos.split(' ');
  const lv = levels.split('|').map((l) => l.split('/'));
  const centre = (L, f, r) => [M + (f + L / 2 + 0.5) * s, M + (3.5 - r - L / 2) * s];
  let black = 0, white = 0;
  for (let L = 0; L < 4; L++) {
    const n = 4 - L;
    for (let i = 0; i < n; i++) {
      const r = n - 1 - i;
      for (let f = 0; f < n; f++) {
        const c = lv[L][i][f];
        const tok = `${L}${'abcd'[f]}${r + 1}`;
        const [cx, cy] = centre(L, f, r);
        if (c === 'b' || c === 'w') {
          if (c === 'b') black++; else white++;
          const e = el('circle', { cx, cy, r: s * 0.47, fill: c === 'b' ? 'url(#pb)' : 'url(#pw)', stroke: c === 'b' ? '#000' : '#8d846c' }, svg);
          mark(e, tok, next);
          if (L > 0) {
            const t = text(svg, cx, cy + 5, String(L), { fill: c === 'b' ? '#ddd' : '#555', 'font-size': 14 });
            t.setAttribute('pointer-events', 'none');
          }
        } else if (L === 0) {
          const e = el('circle', { cx, cy, r: s * 0.36, fill: '#a8864e', stroke: '#8a6a3a' }, svg);
          mark(e, tok, next);
        } else if (next.has(tok) || S.path.includes(tok) || S.last.includes(tok)) {
          const e = el('circle', { cx, cy, r: s * 0.4, fill: 'rgba(31,143,58,0.18)', stroke: '#1f8f3a' }, svg);
          mark(e, tok, next);
        }
      }
    }
  }
  for (let i = 0; i < 4; i++) {
    text(svg, M + i * s + s / 2, N + 2 * M - 8, 'abcd'[i], { fill: '#5b4420' });
    text(svg, 13, M + (3 - i) * s + s / 2 + 4, String(i + 1), { fill: '#5b4420' });
  }
  // the reserves: 15 minus the balls on the board
  const x0 = N + 2 * M + 20;
  for (const [k, colour, count] of [[0, 'black', 15 - black], [1, 'white', 15 - white]]) {
    const y0 = 30 + k * 170;
    text(svg, x0 + 55, y0, `${colour} reserve: ${count}`, { 'font-weight': side === colour[0] ? 'bold' : 'normal' });
    for (let j = 0; j < count; j++) {
      el('circle', { cx: x0 + 12 + (j % 5) * 22, cy: y0 + 22 + Math.floor(j / 5) * 22, r: 10, fill: colour === 'black' ? 'url(#pb)' : 'url(#pw)', stroke: '#555' }, svg);
    }
  }
}

function drawBackgammon(svg, next) {
  const F = 16, pw = 44, B = 46, T = 56, ph = 180, gap = 52;
  const W = F + 12 * pw + B + F + T + F, H = F + ph + gap + ph + F;
  svg.setAttribute('width', W);
  svg.setAttribute('height', H);
  svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
  el('rect', { x: 0, y: 0, width: W, height: H, rx: 10, fill: '#5b3a1e' }, svg);
  const innerW = 12 * pw + B;
  el('rect', { x: F, y: F, width: innerW, height: H - 2 * F, fill: '#eadcbc' }, svg);
  const barX = F + 6 * pw;
  el('rect', { x: barX, y: F, width: B, height: H - 2 * F, fill: '#6e4a2a' }, svg);
  const trayX = F + innerW + F;
  el('rect', { x: trayX, y: F, width: T, height: H - 2 * F, fill: '#4a2f18' }, svg);
  if (!S.board) return;
  const white = S.side === 'white' ? S.board.on_roll : S.board.opponent;
  const black = S.side === 'white' ? S.board.opponent : S.board.on_roll;
  // points in white's numbering: 13..24 along the top from the left, 12..1 along the bottom
  const colX = (col) => F + col * pw + (col >= 6 ? B : 0);
  const geom = (p) => (p >= 13 ? { x: colX(p - 13), top: true } : { x: colX(12 - p), top: false });
  const tokOf = (p) => (S.side === 'white' ? p : 25 - p);
  const r = pw / 2 - 2;
  for (let p = 1; p <= 24; p++) {
    const { x, top } = geom(p);
    const y0 = top ? F : H - F;
    const tip = top ? F + ph - 8 : H - F - ph + 8;
    el('polygon', { points: `${x},${y0} ${x + pw},${y0} ${x + pw / 2},${tip}`, fill: p % 2 ? '#b5523b' : '#3c6e71' }, svg);
    text(svg, x + pw / 2, top ? 12 : H - 4, String(p), { fill: '#f3e6c8', 'font-size': 10 });
    const nw = white.points[p - 1], nb = black.points[24 - p];
    const n = nw || nb;
    for (let j = 0; j < Math.min(n, 5); j++) {
      const cy = top ? F + r + 1 + j * 2 * r : H - F - r - 1 - j * 2 * r;
      el('circle', { cx: x + pw / 2, cy, r, fill: nw ? '#f7f3ea' : '#262626', stroke: nw ? '#555' : '#000', 'stroke-width': 1.5 }, svg);
    }
    if (n > 5) {
      const cy = top ? F + r + 1 + 4 * 2 * r : H - F - r - 1 - 4 * 2 * r;
      text(svg, x + pw / 2, cy + 5, String(n), { fill: nw ? '#222' : '#eee', 'font-size': 15, 'font-weight': 'bold' });
    }
    const hit = el('rect', { x: x + 1, y: top ? F + 1 : H - F - ph - 1, width: pw - 2, height: ph, fill: 'transparent', rx: 4 }, svg);
    mark(hit, tokOf(p), next);
  }
  // the bars: white's checkers in the upper half (they enter top right), black's in the lower
  for (const [who, side, top] of [['white', white, true], ['black', black, false]]) {
    for (let j = 0; j < Math.min(side.bar, 4); j++) {
      const cy = top ? F + ph - r - j * 2 * r : H - F - ph + r + j * 2 * r;
      el('circle', { cx: barX + B / 2, cy, r, fill: who === 'white' ? '#f7f3ea' : '#262626', stroke: '#000' }, svg);
    }
    if (side.bar > 1) text(svg, barX + B / 2, top ? F + ph - 2 * r * Math.min(side.bar, 4) + 4 : H - F - ph + 2 * r * Math.min(side.bar, 4) + 6, String(side.bar), { fill: '#fff', 'font-weight': 'bold' });
    const hit = el('rect', { x: barX + 2, y: top ? F + 2 : H - F - ph - 2, width: B - 4, height: ph, fill: 'transparent', rx: 4 }, svg);
    mark(hit, S.side === who ? 25 : null, next);
    // borne off: white at the bottom of the tray, black at the top
    for (let j = 0; j < side.off; j++) {
      const y = who === 'white' ? H - F - 10 - j * 11 : F + 2 + j * 11;
      el('rect', { x: trayX + 6, y, width: T - 12, height: 8, rx: 2, fill: who === 'white' ? '#f7f3ea' : '#262626', stroke: '#000' }, svg);
    }
    const off = el('rect', { x: trayX + 2, y: who === 'white' ? H - F - ph : F, width: T - 4, height: ph, fill: 'transparent', rx: 4 }, svg);
    mark(off, S.side === who ? 0 : null, next);
  }
  text(svg, trayX + T / 2, F + ph + gap / 2 - 14, 'pips', { fill: '#b9a58a', 'font-size': 10 });
  text(svg, trayX + T / 2, F + ph + gap / 2 + 1, `${black.pips}`, { fill: '#bbb', 'font-size': 12 });
  text(svg, trayX + T / 2, F + ph + gap / 2 + 16, `${white.pips}`, { fill: '#fff', 'font-size': 12 });
  // the dice of the player on roll, on its right-hand half (white) or left-hand half (black)
  if (S.dice && !S.over) {
    const dx = S.side === 'white' ? barX + B + 3 * pw - 36 : F + 3 * pw - 36;
    const dy = F + ph + gap / 2 - 16;
    [...S.dice].forEach((d, k) => drawDie(svg, dx + k * 40, dy, parseInt(d, 10), S.side));
  }
}

function drawDie(svg, x, y, n, side) {
  const light = side === 'white';
  el('rect', { x, y, width: 32, height: 32, rx: 6, fill: light ? '#fffdf6' : '#262626', stroke: '#000' }, svg);
  const spots = { 1: [[1, 1]], 2: [[0, 0], [2, 2]], 3: [[0, 0], [1, 1], [2, 2]], 4: [[0, 0], [2, 0], [0, 2], [2, 2]],
    5: [[0, 0], [2, 0], [1, 1], [0, 2], [2, 2]], 6: [[0, 0], [0, 1], [0, 2], [2, 0], [2, 1], [2, 2]] }[n] || [];
  for (const [i, j] of spots) el('circle', { cx: x + 7 + i * 9, cy: y + 7 + j * 9, r: 3, fill: light ? '#111' : '#eee' }, svg);
}

function describeTurn() {
  const h = humanSide();
  if (S.game === 'bilitaire') {
    const code = S.pos.split(' ')[1];
    const role = S.side === 'slider' ? 'the slider' : 'the ball player';
    let what;
    if (code === 'r') what = 'click a ball to remove it';
    else if (S.side === 'slider') what = 'click a tile, then where it slides (or the tile alone to remove it); announcements from the list';
    else what = code.length > 1 ? `click a ball, then each landing hole of a chain of ${code.slice(1)} jumps` : 'click a ball, then the hole it jumps to';
    return [role, what];
  }
  if (S.game === 'pylos') {
    return [S.side, 'click an empty cell to place a ball, or one of your free balls then a higher cell to raise it; take-backs from the list'];
  }
  if (!S.dice) return [S.side, h === 'both' || S.side === h ? 'roll the dice' : ''];
  return [S.side, `${S.dice}: click a checker (or the bar), then where it goes (the tray to bear off); or pick the play from the list`];
}

function renderPanel(next) {
  const h = humanSide();
  $('position').value = S.pos || '';
  // status
  if (S.over) {
    let msg;
    if (S.game === 'bilitaire') {
      const balls = (S.pos.split(' ')[0].match(/o/g) || []).length;
      msg = `Round over: ${balls} ball${balls === 1 ? '' : 's'} left.`;
    } else if (S.game === 'pylos') {
      const winner = S.side === 'black' ? 'white' : 'black';
      msg = `Game over: ${winner} wins${h !== 'both' ? (winner === h ? ' — you win' : ' — the engine wins') : ''}.`;
    } else {
      const winner = S.side === 'white' ? 'black' : 'white';
      msg = `Game over: ${winner} wins ${S.board && S.board.loss === 'single' ? 'a single game' : 'a ' + (S.board ? S.board.loss : 'game')}${h !== 'both' ? (winner === h ? ' — you win' : ' — the engine wins') : ''}.`;
    }
    setStatus(msg, 'over');
  } else if (S.thinking) {
    setStatus(`Engine (${S.side}) is thinking…`, 'busy');
  } else if (S.pos) {
    const [who] = describeTurn();
    setStatus(enginesTurn() ? `Engine to move (${who})` : `Your turn: ${who}${h === 'both' ? ' to move' : ''}`, '');
  }
  $('prompt').textContent = !S.over && !S.thinking && !enginesTurn() && S.pos ? describeTurn()[1] : '';
  // the list of candidate moves
  const box = $('choices');
  box.textContent = '';
  if (humanMayMove() && (S.game !== 'backgammon' || S.dice)) {
    const cands = candidates();
    const single = S.game === 'backgammon' && cands.length === 1 && cands[0].move === '';
    for (const m of cands) {
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = m.move === '' ? 'no legal play: pass' : m.move;
      b.addEventListener('click', () => playMove(m, 'you'));
      box.appendChild(b);
    }
    if (single) $('prompt').textContent = `${S.dice}: no legal play — pass the turn`;
  }
  $('roll').disabled = !(S.game === 'backgammon' && !S.over && !S.thinking && !S.dice && !enginesTurn());
  $('setdice').disabled = $('roll').disabled;
  $('undo').disabled = S.past.length === 0 || S.thinking;
  // the move list
  const ol = $('movelist');
  ol.textContent = '';
  for (const e of S.log) {
    const li = document.createElement('li');
    li.className = e.who === 'engine' ? 'engine' : 'you';
    li.textContent = e.who === 'roll' || e.who === 'set' ? e.move : `${e.who === 'engine' ? 'engine' : 'you'} (${e.side}): ${e.move}`;
    ol.appendChild(li);
  }
  ol.scrollTop = ol.scrollHeight;
  // the analysis table
  const a = $('analysis');
  a.textContent = '';
  if (S.analysis && S.analysis.length) {
    const table = document.createElement('table');
    const head = document.createElement('tr');
    for (const t of ['move', S.game === 'backgammon' ? 'equity' : 'value']) {
      const th = document.createElement('th');
      th.textContent = t;
      head.appendChild(th);
    }
    table.appendChild(head);
    S.analysis.forEach((row, i) => {
      const tr = document.createElement('tr');
      if (i === 0 && S.game === 'backgammon') tr.className = 'best';
      for (const t of [row.move, row.value]) {
        const td = document.createElement('td');
        td.textContent = t;
        tr.appendChild(td);
      }
      const m = S.moves.find((x) => x.move === row.move);
      if (m && humanMayMove()) {
        tr.classList.add('pick');
        tr.title = 'play this move';
        tr.addEventListener('click', () => playMove(m, 'you'));
      }
      table.appendChild(tr);
    });
    a.appendChild(table);
  }
}

// ---------- wiring ----------

function selectGame(game) {
  if (!GAMES[game]) game = 'bilitaire';
  S.game = game;
  S.board = null;
  S.pos = null;
  S.dice = null;
  if (location.hash !== '#' + game) history.replaceState(null, '', location.pathname + location.search + '#' + game);
  setupControls();
  newGame();
}

function roll() {
  if ($('roll').disabled) return;
  S.dice = `${die()}${die()}`;
  load(S.pos);
}

function useDice() {
  if ($('setdice').disabled) return;
  const d = $('dice').value.replace(/[^1-6]/g, '');
  if (d.length !== 2) { setStatus('Dice: two digits from 1 to 6, e.g. 31', 'error'); return; }
  S.dice = d;
  load(S.pos);
}

async function init() {
  for (const b of document.querySelectorAll('#games button')) b.addEventListener('click', () => selectGame(b.dataset.game));
  $('new').addEventListener('click', () => newGame());
  $('undo').addEventListener('click', undo);
  $('analyse').addEventListener('click', analyse);
  $('load').addEventListener('click', loadPasted);
  $('position').addEventListener('keydown', (e) => { if (e.key === 'Enter') loadPasted(); });
  $('roll').addEventListener('click', roll);
  $('setdice').addEventListener('click', useDice);
  $('side').addEventListener('change', () => { newGeneration(); render(); load(S.pos); });
  $('rules').addEventListener('change', () => newGame());
  $('takeback').addEventListener('change', () => newGame());
  try {
    const v = await (await fetch('/version')).json();
    S.limits = v.limits;
    $('server').textContent = `${v.name} ${v.version} · at most ${fmtTime(v.limits.max_time_ms)} a search, ${v.limits.max_searches} at once`;
  } catch (e) {
    $('server').textContent = 'server version unknown';
  }
  window.addEventListener('hashchange', () => { if (location.hash.slice(1) !== S.game) selectGame(location.hash.slice(1)); });
  selectGame(location.hash.slice(1));
}

document.addEventListener('DOMContentLoaded', init);
