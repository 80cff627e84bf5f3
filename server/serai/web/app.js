// The serai web client: the table drawn from the server's Presentation, moves picked step by step
// from the legal moves, the replay viewer and the routes (the lobby is lobby.js). No game code
// lives here: any game the server offers plays.
import { call, hasApiKey, requestId, setApiKey, stream, RpcError } from "/connect.js";
import {
  changes, drawTable, el, howToPlay, itemsByKey, readGuide, scores, seatNames, withNames,
} from "/look.js";
import { leaderboard, lobby, ratedQueue } from "/lobby.js";
import {
  describe, guideOf, join, needsKey, playerName, plural, ratingText, say, seats, signed,
} from "/page.js";

const main = document.getElementById("main");
const where = document.getElementById("where");

async function rematch(matchId, mine) {
  // The same players again: each seat asks with its token, and all land in one new match.
  try {
    const answer = await call("Rematch", { matchId, seatToken: mine.token });
    const next = answer.match.matchId;
    seats.set(next, { seat: answer.seat ?? 0, token: answer.seatToken, name: mine.name });
    location.hash = "#/m/" + next;
  } catch (error) {
    say(error.message);
  }
}

// What a finished match did to each seat's rating (GetMatchRatings), into ``box``: for a rated
// match (``rated``) asked again until every seat's is in (the server rates a match shortly after
// it ends), else asked once (shown if it moved any). ``gone``: the table was left.
async function showRatings(box, matchId, names, rated, gone) {
  if (rated) box.replaceChildren(el("p", {}, "Rating the match…"));
  const deadline = Date.now() + 60_000;
  let pause = 300;
  while (!gone()) {
    let found = [];
    try { found = (await call("GetMatchRatings", { matchId })).ratings || []; } catch { /* asked again */ }
    if (found.length && (!rated || found.length >= names.length)) {
      box.replaceChildren(el("table", {},
        el("caption", {}, "New ratings"),
        el("thead", {}, el("tr", {}, ["player", "rating", "change"].map((h) => el("th", { scope: "col" }, h)))),
        el("tbody", {}, found.map((r) => el("tr", { "data-seat": r.seat ?? 0 },
          el("td", {}, names[r.seat ?? 0] || r.rating?.playerName || "?"),
          el("td", {}, ratingText(r.change?.score) + (r.rating?.provisional ? " (provisional)" : "")),
          el("td", { "data-change": "" }, signed((r.change?.score ?? 0) - (r.change?.scoreBefore ?? 0))))))));
      return;
    }
    if (!rated) return;
    if (Date.now() > deadline) {
      // Not rated (yet): a match of people against bots moves no one's rating, unless the host says.
      box.replaceChildren(el("p", {}, "No rating has moved for this match yet: the leaderboard shows the ratings."));
      return;
    }
    await new Promise((done) => setTimeout(done, pause));
    pause = Math.min(pause * 2, 3000);
  }
}

// A short chime when it becomes this page's turn while the page is in the background (a title
// alone is easy to miss). Browsers allow sound only after the person has used the page.
let audio = null;
function chime() {
  try {
    audio = audio || new AudioContext();
    const tone = audio.createOscillator(), gain = audio.createGain();
    tone.frequency.value = 660;
    gain.gain.setValueAtTime(0.15, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.4);
    tone.connect(gain).connect(audio.destination);
    tone.start(); tone.stop(audio.currentTime + 0.4);
  } catch { /* no sound here: the title says it */ }
}

// --- the table --------------------------------------------------------------------------------

let leaving = () => {};

function table(matchId, spectate) {
  leaving();
  const mine = spectate ? null : seats.get(matchId);
  const bots = spectate ? [] : seats.bot(matchId) || [];
  const token = mine ? mine.token : "";
  const controller = new AbortController();
  let closed = false;
  leaving = () => { closed = true; controller.abort(); leaving = () => {}; };
  where.textContent = `match ${matchId.slice(0, 8)} · `
    + (mine ? `you are ${mine.name ? mine.name + ", " : ""}seat ${mine.seat}` : "watching");

  const head = el("h1", { class: "headline", "aria-live": "polite" }, "Connecting…");
  const seatsLine = el("div", { class: "seats", role: "list", "aria-label": "players" });
  const clockLine = el("div", { class: "clock", hidden: true, role: "timer", "aria-live": "off" });
  const joinBar = el("div", { class: "join", hidden: true });
  const lastMove = el("div", { class: "last-move", "aria-live": "polite" });
  const zones = el("div", { class: "zones" });
  const moves = el("section", { class: "moves", "aria-label": "your move" });
  const resignBar = el("div", { class: "resign", hidden: true });
  const outcome = el("div", {});
  const rules = el("div", {});
  const log = el("div", { class: "log", role: "log", "aria-label": "moves so far", tabindex: "0" });
  main.replaceChildren(head, seatsLine, clockLine, joinBar, outcome, lastMove, moves, resignBar, zones, rules,
    el("h2", {}, "Moves"), log);

  let lastEventId = "";
  let snapshot = null;
  let picking = [];
  let legal = null;
  let guide = readGuide(null);
  let drawnItems = null;   // the items last drawn, by zone and label: what the next event changed
  let drawnVersion = null;
  let clockTimer = null;
  let wasMyTurn = false;
  const logged = [];  // the events of the log, to write it again with the players' names
  let loggedNames = "";
  const stopClock = () => { if (clockTimer) clearInterval(clockTimer); clockTimer = null; };
  const closeTable = leaving;
  leaving = () => { stopClock(); document.title = "serai"; closeTable(); };

  // An announcement addressed to some seats alone: those seats read what they were told, marked
  // as theirs; everyone else reads what the rules let them see of it.
  function announcementLine(announcement, names) {
    const text = withNames(announcement.text, names);
    if (!announcement.toSeats || !announcement.toSeats.length) return text;
    return announcement.withheld ? `${text} (private)` : `to you alone: ${text}`;
  }

  function logLine(event, match) {
    const names = seatNames(match);
    // The log keeps the seat's number beside the name: it is what the transcript and bots say.
    const who = (seat) => {
      const name = (match.seats || [])[seat ?? 0]?.playerName;
      return name ? `${name} (seat ${seat ?? 0})` : `seat ${seat ?? 0}`;
    };
    if (event.created) return `match created: ${event.created.game}, ${plural(event.created.seats, "seat")}`;
    if (event.joined) return `${event.joined.playerName || "someone"} joined as seat ${event.joined.seat ?? 0}`;
    if (event.started) return "the match started: the cards are dealt";
    if (event.move) return `${who(event.move.seat)}: ${withNames(event.move.label, names)}`;
    if (event.announcement) return announcementLine(event.announcement, names);
    if (event.resigned) return `${who(event.resigned.seat)} resigned`;
    if (event.finished) return `finished: ${withNames(event.finished.outcome.summary, names)}`;
    if (event.timedOut) return `${who(event.timedOut.seat)} ran out of time`;
    return null;
  }

  function drawZones(presentation, viewer, names) {
    head.textContent = withNames(presentation.headline, names);
    // What the last event changed is marked (and briefly animated): items new or different since
    // the table was last drawn, and the zones they are in. A redraw of the same version keeps
    // the marks it had.
    const version = String(snapshot.version);
    const changed = version === drawnVersion && zones.changedMarks ? zones.changedMarks
      : changes(drawnItems, presentation);
    if (version !== drawnVersion) { drawnItems = itemsByKey(presentation); drawnVersion = version; }
    zones.changedMarks = changed;
    drawTable(zones, presentation, { guide, names, viewer, changed });
  }

  function drawClock() {
    // The turn clock, when the match has one: the seconds left to the seats to act.
    stopClock();
    const deadline = Number(snapshot.moveDeadlineMs || 0);
    if (!deadline || snapshot.outcome) { clockLine.hidden = true; return; }
    const names = seatNames(snapshot.match);
    const who = (snapshot.toAct || []).map((seat) => (seat === snapshot.viewerSeat ? "you" : names[seat])).join(", ");
    const tick = () => {
      const left = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
      clockLine.textContent = `⏱ ${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")} left for ${who}`;
      clockLine.classList.toggle("short", left <= 10);
    };
    clockLine.hidden = false;
    tick();
    clockTimer = setInterval(tick, 1000);
  }

  // The end summary's new ratings: asked once the match is over, kept across redraws.
  let ratingsBox = null;
  function newRatings(names) {
    if (!ratingsBox) {
      ratingsBox = el("div", { class: "ratings", "data-ratings": "", "aria-live": "polite" });
      showRatings(ratingsBox, matchId, names, Boolean(mine && mine.rated), () => closed);
    }
    return ratingsBox;
  }

  function drawSummary(names) {
    // The end of the match: each player's place and score, and the score items the table last
    // showed for them (the breakdown), then the way back to the lobby.
    const result = snapshot.outcome;
    const bySeat = scores(snapshot.presentation);
    const order = names.map((_, seat) => seat)
      .sort((a, b) => (result.ranks?.[a] ?? 0) - (result.ranks?.[b] ?? 0) || a - b);
    return el("section", { class: "outcome", "aria-label": "match over", "data-summary": "" },
      el("h2", {}, "Match over: " + withNames(result.summary, names)),
      el("table", {},
        el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "place"), el("th", { scope: "col" }, "player"),
          el("th", { scope: "col" }, "score"), el("th", { scope: "col" }, "on the table"))),
        el("tbody", {}, order.map((seat) => el("tr", { "data-seat": seat },
          el("td", {}, String((result.ranks?.[seat] ?? 0) + 1)),
          el("td", {}, names[seat] + (seat === snapshot.viewerSeat ? " (you)" : "")),
          el("td", {}, String(result.scores?.[seat] ?? 0)),
          el("td", {}, (bySeat.get(seat) || []).join(", ")))))),
      newRatings(names),
      el("p", {}, el("button", { class: "primary", "data-action": "lobby", onclick: () => (location.hash = "#/") }, "Back to the lobby"),
        " ", mine ? el("button", { "data-action": "rematch", onclick: () => rematch(matchId, mine) }, "Rematch") : null,
        " ", el("a", { href: `#/replay/${matchId}` }, "Replay this match")));
  }

  function draw() {
    const match = snapshot.match;
    const toAct = snapshot.toAct || [];
    const viewer = snapshot.viewerSeat;
    const names = seatNames(match);
    const open = match.status === "MATCH_STATUS_OPEN";
    const running = scores(snapshot.presentation);
    seatsLine.replaceChildren(...(match.seats || []).map((info, i) => {
      const free = !info.joined;
      const text = free ? `seat ${i}: free` : `${names[i]}${i === viewer ? " (you)" : ""}`;
      const score = running.get(i);
      return el("span", { role: "listitem", class: "player" + (toAct.includes(i) ? " to-act" : "") + (free ? " free" : ""), "data-seat": i },
        `${i === viewer ? "▶ " : ""}${text}${toAct.includes(i) && !snapshot.outcome ? " — to play" : ""}`,
        score ? el("span", { class: "running-score", "data-score": "" }, ` · ${score.join(", ")}`) : null);
    }));
    // The page's title says when it is this seat's turn, so a player in another tab sees it.
    const myTurn = viewer !== undefined && toAct.includes(viewer) && !snapshot.outcome;
    document.title = snapshot.outcome ? "Match over — serai" : myTurn ? "● Your turn — serai" : `${match.game} — serai`;
    if (myTurn && !wasMyTurn && document.hidden) chime();
    wasMyTurn = myTurn;
    drawClock();
    drawJoin(match);
    if (open) {
      // Until every seat is taken there is no deal: a placeholder hand would change under the
      // player's eyes when the match starts, so none is shown.
      head.textContent = mine ? "Waiting for players to join… (send this page's address to a friend)"
        : "Waiting for players to join…";
      zones.replaceChildren(el("p", { class: "note" }, "The cards are dealt once every seat is taken."));
    } else if (snapshot.presentation) drawZones(snapshot.presentation, viewer, names);
    outcome.replaceChildren(...(snapshot.outcome ? [drawSummary(names)] : []));
    drawMoves();
    drawResign(match);
  }

  // A seat may give up a running match: asked twice (a misplaced click costs the match), and
  // without a browser dialog, which a background tab may never show.
  function drawResign(match) {
    const can = mine && !snapshot.outcome && match.status === "MATCH_STATUS_RUNNING";
    if (!can) { resignBar.hidden = true; resignBar.replaceChildren(); return; }
    if (!resignBar.hidden) return;  // keep a question already asked
    const ask = () => resignBar.replaceChildren(
      el("span", {}, "Give up this match? "),
      el("button", { "data-action": "resign-yes", onclick: resign }, "Yes, resign"), " ",
      el("button", { "data-action": "resign-no", onclick: offer }, "No, play on"));
    const offer = () => resignBar.replaceChildren(
      el("button", { "data-action": "resign", onclick: ask }, "Resign…"));
    resignBar.hidden = false;
    offer();
  }

  async function resign() {
    resignBar.replaceChildren(el("span", {}, "Resigning…"));
    try {
      await call("Resign", { matchId, seatToken: token });
    } catch (err) { say(describe(err)); resignBar.hidden = true; if (snapshot) drawResign(snapshot.match); }
  }

  function drawJoin(match) {
    // A shared link (#/m/<id>) seats whoever opens it: they choose a free seat and join.
    const free = (match.seats || []).map((info, i) => (info.joined ? null : i)).filter((i) => i !== null);
    if (mine || spectate || match.status !== "MATCH_STATUS_OPEN" || !free.length) {
      joinBar.hidden = true; joinBar.replaceChildren(); return;
    }
    if (!joinBar.hidden) return;  // already offered: keep what the person is typing
    const nameInput = el("input", { id: "join-name", value: playerName(), size: 12, "aria-label": "your name" });
    const take = async (seat) => {
      const name = nameInput.value.trim() || "guest";
      localStorage.setItem("serai.name", name);
      try {
        seats.set(matchId, await join(matchId, name, seat));
        table(matchId, false);  // the same page, now seated
      } catch (err) { say(describe(err)); joinBar.hidden = true; refreshJoin(); }
    };
    joinBar.hidden = false;
    joinBar.replaceChildren(
      el("span", {}, "Join this match as ", nameInput, " in "),
      ...free.map((seat) => el("button", { class: "primary", "data-action": "join-seat", "data-seat": seat,
        onclick: () => take(seat) }, `seat ${seat}`)));
  }

  async function refreshJoin() {
    try {
      const fresh = await call("GetMatch", { matchId });
      if (!closed) drawJoin(fresh.match);
    } catch { /* the watch says what is wrong */ }
  }

  function drawMoves() {
    if (!legal || !legal.length) { moves.replaceChildren(); moves.hidden = true; return; }
    moves.hidden = false;
    const depth = picking.length;
    const matching = legal.filter((m) => {
      const steps = m.steps && m.steps.length ? m.steps : [m.label];
      return picking.every((step, i) => steps[i] === step);
    });
    const complete = matching.filter((m) => (m.steps && m.steps.length ? m.steps : [m.label]).length === depth);
    const next = [...new Set(matching.map((m) => (m.steps && m.steps.length ? m.steps : [m.label])[depth]).filter((s) => s !== undefined))];
    // Keyboard play: a choice made from the keyboard (or the turn arriving while nothing has
    // focus) leaves the focus on the next choices, not on the page's body.
    const keepFocus = moves.contains(document.activeElement) || document.activeElement === document.body;
    moves.replaceChildren(
      el("div", { class: "path" }, depth ? "Your move: " + picking.join(" › ") : "Your move:"),
      ...complete.map((m) => el("button", { class: "primary", "data-move": m.label, onclick: () => submit(m) }, "Play: " + m.label)),
      ...next.map((step) => el("button", { "data-step": step, onclick: () => { picking = [...picking, step]; drawMoves(); } }, step)),
      ...(depth ? [el("button", { "data-action": "back", onclick: () => { picking = picking.slice(0, -1); drawMoves(); } }, "← back")] : []),
    );
    if (keepFocus) moves.querySelector("button")?.focus({ preventScroll: true });
  }

  async function submit(move) {
    legal = null; picking = []; drawMoves();
    try {
      await call("SubmitMove", { matchId, seatToken: token, moveId: move.id, expectedVersion: snapshot.version, requestId: requestId() });
    } catch (err) { say(describe(err)); refreshMoves(); }
  }

  async function refreshMoves() {
    if (!mine || !snapshot || !(snapshot.toAct || []).includes(mine.seat)) { legal = null; drawMoves(); return; }
    try {
      const listed = await call("ListLegalMoves", { matchId, seatToken: token });
      if (String(listed.version) !== String(snapshot.version)) return;
      legal = listed.moves || []; picking = []; drawMoves();
    } catch (err) { say(describe(err)); }
  }

  async function playBots() {
    // The random bot lives in this page: it asks for its seat's legal moves and picks one at random.
    for (const bot of bots) {
      if (!(snapshot.toAct || []).includes(bot.seat) || snapshot.outcome) continue;
      await new Promise((done) => setTimeout(done, 500));
      if (closed) return;
      try {
        const listed = await call("ListLegalMoves", { matchId, seatToken: bot.token });
        const options = listed.moves || [];
        if (!options.length) continue;
        const move = options[Math.floor(Math.random() * options.length)];
        await call("SubmitMove", { matchId, seatToken: bot.token, moveId: move.id, expectedVersion: listed.version, requestId: requestId() });
      } catch (err) { if (!(err instanceof RpcError && err.code === "aborted")) say("bot: " + describe(err)); }
    }
  }

  async function watch() {
    let pause = 500;
    while (!closed) {
      try {
        await stream("Watch", { matchId, seatToken: token, afterEventId: lastEventId, presentation: true }, (event) => {
          lastEventId = event.eventId;
          const match = event.snapshot ? event.snapshot.match : snapshot ? snapshot.match : { seats: [] };
          const line = logLine(event, match);
          logged.push(event);
          if (logged.length > 500) logged.shift();
          // A private announcement reaches this page only as the server made it for this seat.
          const toldOnly = (e) => e.announcement && e.announcement.toSeats && !e.announcement.withheld;
          const logDiv = (e, text) => el("div", toldOnly(e) ? { class: "private" } : {}, text);
          // A resumed watch replays events before it gets a snapshot, which names the players:
          // the log is written again once the names are known, else one line is added.
          const names = JSON.stringify(seatNames(match));
          if (names !== loggedNames) {
            loggedNames = names;
            log.replaceChildren(...logged.map((e) => [e, logLine(e, match)]).filter(([, text]) => text).reverse().map(([e, text]) => logDiv(e, text)));
          } else if (line) { log.prepend(logDiv(event, line)); }
          if (line && (event.move || event.resigned || event.timedOut)) {
            lastMove.replaceChildren(el("span", { class: "tag" }, "Last move"), " ", line);
          }
          if (event.snapshot) {
            if (!snapshot) {
              // The game's guide (colours, rules), once; the table is drawn again with it.
              guideOf(event.snapshot.match.game).then((found) => {
                if (closed) return;
                guide = found.guide;
                rules.replaceChildren(...[howToPlay(guide, found.title)].filter(Boolean));
                if (snapshot) draw();
              });
            }
            snapshot = event.snapshot;
            draw();
            refreshMoves();
            playBots();
          }
          say(""); pause = 500;
        }, { signal: controller.signal });
        if (snapshot && snapshot.outcome) return;  // the stream ended with the match
      } catch (err) {
        if (closed) return;
        if (needsKey(err)) { leaving(); keyForm(err); return; }
        if (err instanceof RpcError && (err.code === "not_found" || err.code === "permission_denied")) {
          head.textContent = describe(err);
          return;
        }
        say(`${describe(err)} — reconnecting in ${Math.round(pause / 1000)} s…`);
      }
      await new Promise((done) => setTimeout(done, pause));
      pause = Math.min(pause * 2, 8000);
    }
  }
  watch();
}

// --- the replay viewer ------------------------------------------------------------------------

// A finished match step by step (GetReplay) from a seat's view or a spectator's, with the check of
// its committed deal: the server's verdict on the transcript, and this browser's own check that
// the commitment published before the deal opens to the revealed server seed.
async function replayViewer(matchId, seatText) {
  leaving();
  const viewer = seatText === undefined || seatText === "" ? undefined : Number(seatText);
  where.textContent = `replay ${matchId.slice(0, 8)}`;
  document.title = "Replay — serai";
  main.replaceChildren(el("p", {}, "Loading the replay…"));
  let answer;
  try {
    answer = await call("GetReplay", viewer === undefined ? { matchId } : { matchId, seat: viewer });
  } catch (err) {
    if (needsKey(err)) return keyForm(err);
    main.replaceChildren(el("p", { class: "headline" }, describe(err)),
      el("p", {}, el("a", { href: "#/" }, "Back to the lobby")));
    return;
  }
  const { guide, title } = await guideOf(answer.match.game);
  const names = seatNames(answer.match);
  const steps = answer.steps || [];
  let at = steps.length - 1;

  const head = el("h1", { class: "headline" });
  const stepLine = el("p", { class: "last-move", "aria-live": "polite", "data-step-label": "" });
  const zones = el("div", { class: "zones" });
  const slider = el("input", { type: "range", min: 0, max: steps.length - 1, value: at, "aria-label": "step" });
  const counter = el("span", { "data-step-count": "" });
  const go = (index) => { at = Math.max(0, Math.min(steps.length - 1, index)); show(); };
  const button = (text, label, action, step) => el("button", { "aria-label": label, "data-action": action, onclick: () => go(step()) }, text);
  const controls = el("div", { class: "replay-controls", role: "group", "aria-label": "steps" },
    button("◀◀", "first step", "first", () => 0), button("◀", "step back", "back", () => at - 1),
    counter, button("▶", "step forward", "forward", () => at + 1),
    button("▶▶", "last step", "last", () => steps.length - 1), slider);
  slider.addEventListener("input", () => go(Number(slider.value)));
  const seatsChoice = el("div", { class: "seats", role: "group", "aria-label": "whose view" },
    el("span", {}, "View as: "),
    ...[undefined, ...names.map((_, i) => i)].map((seat) => el("button", {
      class: seat === viewer ? "primary" : "", "aria-pressed": String(seat === viewer), "data-view": seat === undefined ? "spectator" : seat,
      onclick: () => (location.hash = `#/replay/${matchId}` + (seat === undefined ? "" : `/${seat}`)),
    }, seat === undefined ? "spectator" : names[seat])));
  const check = el("div", { class: "deal-check " + (answer.dealChecked ? "ok" : "failed"), "data-deal-check": "" },
    el("b", {}, answer.dealChecked ? "✓ The deal and every move check out. " : "✗ The check failed. "),
    answer.dealCheck || "", el("br"), el("span", { "data-commitment": "" }, "Checking the commitment in this browser…"));
  main.replaceChildren(
    el("h2", {}, `Replay: ${title} · ${names.join(" vs ")}`), seatsChoice, check, controls, head, stepLine, zones,
    ...[howToPlay(guide, title)].filter(Boolean),
    el("p", {}, el("a", { href: "#/" }, "Back to the lobby")));
  openCommitment(answer.match).then((text) => { check.querySelector("[data-commitment]").textContent = text; });

  function show() {
    const step = steps[at];
    slider.value = at;
    counter.textContent = ` step ${at} of ${steps.length - 1} `;
    const who = step.seat === undefined ? "" : `${names[step.seat]}: `;
    stepLine.replaceChildren(el("span", { class: "tag" }, at ? `Move ${at}` : "Start"), ` ${who}${step.label}`);
    head.textContent = withNames(step.presentation?.headline || "", names);
    const changed = changes(at ? itemsByKey(steps[at - 1].presentation) : null, step.presentation || {});
    drawTable(zones, step.presentation || {}, { guide, names, viewer, changed });
  }
  const keys = (event) => {
    if (event.target instanceof HTMLInputElement && event.target.type !== "range") return;
    if (event.key === "ArrowRight") { go(at + 1); event.preventDefault(); }
    if (event.key === "ArrowLeft") { go(at - 1); event.preventDefault(); }
  };
  document.addEventListener("keydown", keys);
  leaving = () => { document.removeEventListener("keydown", keys); leaving = () => {}; };
  show();
}

// This browser's own check of a committed deal: SHA-256("serai/v1/seed-commitment" 0x00 ||
// server_seed) must be the commitment the match published before anyone joined.
async function openCommitment(match) {
  const bytes = (b64) => Uint8Array.from(atob(b64 || ""), (c) => c.charCodeAt(0));
  const hex = (data) => Array.from(data, (b) => b.toString(16).padStart(2, "0")).join("");
  if (match.seedChosen) return "The creator chose the seed: no committed deal to check.";
  const commitment = bytes(match.seedCommitment), seed = bytes(match.seedReveal?.serverSeed);
  if (!commitment.length || !seed.length) return "This match has no committed deal to check.";
  if (!crypto.subtle) return "This browser cannot hash here (not a secure context): `serai verify` checks it.";
  const prefix = new TextEncoder().encode("serai/v1/seed-commitment\u0000");
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new Uint8Array([...prefix, ...seed])));
  return hex(digest) === hex(commitment)
    ? `This browser checked that the commitment ${hex(commitment).slice(0, 16)}… opens to the revealed server seed.`
    : `The commitment ${hex(commitment).slice(0, 16)}… does NOT open to the revealed server seed.`;
}

function keyForm(err) {
  const input = el("input", { id: "api-key", type: "password", size: 40, autocomplete: "off" });
  const use = () => { setApiKey(input.value); route(); };
  input.addEventListener("keydown", (e) => { if (e.key === "Enter") use(); });
  main.replaceChildren(
    el("h2", {}, "This server needs an API key"),
    el("p", {}, hasApiKey() ? `The key this browser holds was refused (${describe(err)}).`
      : "Ask the server's operator for one (`serai keys create NAME`), and paste it here. "
        + "It stays in this browser."),
    el("p", {}, input, " ", el("button", { "data-action": "use-key", onclick: use }, "Use this key")),
  );
  say("");
}

// --- routing ----------------------------------------------------------------------------------

function route() {
  const parts = location.hash.replace(/^#\/?/, "").split("/");
  if (parts[0] === "m" && parts[1]) table(parts[1], parts[2] === "spectate");
  else if (parts[0] === "replay" && parts[1]) replayViewer(parts[1], parts[2]);
  else if (parts[0] === "rated") {
    leaving();
    const stop = ratedQueue();
    leaving = () => { stop(); leaving = () => {}; };
  } else if (parts[0] === "leaderboard") {
    leaving();
    leaderboard(parts[1]).catch((err) => (needsKey(err) ? keyForm(err) : say(describe(err))));
  } else {
    leaving();
    lobby().catch((err) => (needsKey(err) ? keyForm(err) : say(describe(err) + " — reload to retry")));
  }
}

window.addEventListener("hashchange", route);
route();
