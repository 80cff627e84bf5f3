// The lobby: the matches this browser holds a seat in, the games (create a match, play a bot,
// play rated), the open and running matches, the rated queue's waiting page and the leaderboards
// with this browser's own rating.
import { call, hasApiKey, houseBots, requestId, setApiKey, stream, RpcError } from "/connect.js";
import { el, howToPlay, readGuide, seatNames, withNames } from "/look.js";
import {
  describe, guestKey, join, listGames, needsKey, playerName, plural, ratingText, reroute, say, seats,
  signed,
} from "/page.js";

const main = document.getElementById("main");
const where = document.getElementById("where");

export async function lobby() {
  where.textContent = "";
  document.title = "serai";
  const games = await listGames();
  // The bots the server plays itself, by game (none where it runs with --house-bots 0).
  let house = {};
  try { house = (await houseBots("GET")).strategies || {}; } catch { /* only the page's random bot */ }
  // One ListMatches a visit: the server limits how often an address may list.
  let listed = [], listError = "";
  try {
    listed = (await call("ListMatches", { limit: 50 })).matches || [];
  } catch (err) {
    if (needsKey(err)) throw err;  // the route asks for a key
    listError = describe(err);
  }
  const open = { matches: listed.filter((m) => m.status === "MATCH_STATUS_OPEN") };
  const running = { matches: listed.filter((m) => m.status === "MATCH_STATUS_RUNNING") };
  const nameInput = el("input", { id: "name", value: playerName(), size: 12, autocomplete: "nickname" });
  nameInput.addEventListener("change", () => localStorage.setItem("serai.name", nameInput.value));
  main.replaceChildren(...[
    el("p", {}, el("label", { for: "name" }, "Your name: "), nameInput,
      hasApiKey() ? el("button", { "data-action": "forget-key", onclick: () => { setApiKey(""); reroute(); } }, "Forget the API key") : null),
    await myMatches(),
    el("h2", {}, "Games"),
    el("p", {}, el("a", { href: "#/leaderboard", "data-action": "leaderboards" }, "Leaderboards and your rating")),
    ...(games.games || []).filter((g) => g.playable).map((g) => gameCard(g, house[g.name] || [])),
    listError ? el("p", {}, `Matches could not be listed (${listError}). `, el("button", { onclick: reroute }, "Try again")) : null,
    el("h2", {}, "Open matches"),
    matchList(open.matches || [], true),
    el("h2", {}, "Running matches"),
    matchList(running.matches || [], false),
  ].filter((node) => node !== null));
  say("");
}

function gameCard(game, houseStrategies) {
  const min = game.minPlayers || 0, max = game.maxPlayers || 0;
  const count = el("select", { name: "seats", "aria-label": "players" });
  for (let n = min; n <= max; n++) count.append(el("option", { value: n }, plural(n, "player")));
  const inputs = (game.options || []).map((option) => {
    let input;
    if (option.choices && option.choices.length) {
      input = el("select", { name: option.name });
      for (const choice of option.choices) {
        input.append(el("option", { value: choice, selected: choice === option.defaultValue }, choice));
      }
    } else if (option.defaultValue === "true" || option.defaultValue === "false") {
      input = el("select", { name: option.name },
        el("option", { value: "true", selected: option.defaultValue === "true" }, "yes"),
        el("option", { value: "false", selected: option.defaultValue === "false" }, "no"));
    } else {
      input = el("input", { name: option.name, value: option.defaultValue, size: 6 });
    }
    return el("label", { title: option.description }, option.name.replaceAll("_", " ") + " ", input);
  });
  const clock = el("select", { name: "clock", "aria-label": "clock per move" },
    ...[[0, "no clock"], [30, "30 s a move"], [60, "1 min a move"], [300, "5 min a move"]]
      .map(([seconds, text]) => el("option", { value: seconds }, text)));
  const options = () => Object.fromEntries(inputs.map((label) => {
    const input = label.querySelector("input, select");
    return [input.name, input.value];
  }));
  // The random bot plays in this page; the others are the server's house bots.
  const botChoice = el("select", { name: "bot", "aria-label": "bot" },
    ...["random", ...houseStrategies.filter((s) => s !== "random")].map((s) => el("option", { value: s }, `${s} bot`)));
  const create = async (withBot) => {
    const strategy = botChoice.value;
    try {
      const seatCount = Number(count.value);
      const made = await call("CreateMatch", {
        game: game.name, seats: seatCount, options: options(), clientId: "web", requestId: requestId(),
        moveSeconds: Number(clock.value),
      });
      const matchId = made.match.matchId;
      seats.set(matchId, await join(matchId, playerName()));
      if (withBot && strategy !== "random") {
        try {
          for (let i = 1; i < seatCount; i++) await houseBots("POST", { matchId, strategy });
        } catch (err) {
          await lobby();
          say(`The ${strategy} bot could not join (${describe(err)}); the match waits for players.`);
          return;
        }
      } else if (withBot) {
        for (let i = 1; i < seatCount; i++) {
          const bot = await join(matchId, seatCount > 2 ? `random bot ${i}` : "random bot");
          const bots = seats.bot(matchId) || [];
          bots.push(bot);
          seats.setBot(matchId, bots);
        }
      }
      location.hash = "#/m/" + matchId;
    } catch (err) { say(describe(err)); }
  };
  return el("div", { class: "game", "data-game": game.name },
    el("b", {}, game.title), " ", el("small", {}, `v${game.version}`),
    el("p", {}, game.summary),
    howToPlay(readGuide(game), ""),
    el("div", {}, count, ...inputs, clock),
    el("button", { class: "primary", "data-action": "create", onclick: () => create(false) }, "Create match"),
    el("span", { class: "bot-choice" },
      el("button", { "data-action": "bot", onclick: () => create(true) }, "Play against a"), " ", botChoice),
    el("button", { "data-action": "rated", title: "wait for players of this game, rated on its leaderboard",
      onclick: () => playRated(game, Number(count.value), options()) }, "Play rated"));
}

// --- rated play -------------------------------------------------------------------------------

function playRated(game, seatCount, options) {
  // The queue asked for is kept in this tab, so that a reload of #/rated waits in it again.
  sessionStorage.setItem("serai.queue", JSON.stringify({ game: game.name, title: game.title, seats: seatCount, options }));
  location.hash = "#/rated";
}

// The rated queue's page: waits in JoinQueue (a server stream) as this browser's guest, says
// its place, and once paired goes to the table, seated. Answers the function that leaves it
// (the stream closed: the server takes the player out of the queue).
export function ratedQueue() {
  const asked = JSON.parse(sessionStorage.getItem("serai.queue") || "null");
  if (!asked) { location.hash = "#/"; return () => {}; }
  const queue = { game: asked.game, seats: asked.seats, options: asked.options, pool: "rated", playerToken: guestKey() };
  const controller = new AbortController();
  let closed = false;
  const stop = () => { closed = true; controller.abort(); };
  const state = el("p", { "data-queue": "", role: "status" }, "Joining the queue…");
  const leave = async () => {
    stop();
    try { await call("LeaveQueue", queue); } catch { /* the closed stream took us out too */ }
    location.hash = "#/";
  };
  where.textContent = "rated queue";
  document.title = "Waiting for players — serai";
  main.replaceChildren(
    el("h1", { class: "headline" }, `Rated ${asked.title || asked.game}: looking for ${plural(asked.seats - 1, "opponent")}…`),
    state,
    el("p", {}, `You play as ${playerName()}; the match is rated on the `,
      el("a", { href: "#/leaderboard/" + asked.game }, "leaderboard"), "."),
    el("p", {}, el("button", { "data-action": "leave-queue", onclick: leave }, "Leave the queue")));
  (async () => {
    let pause = 500;
    while (!closed) {
      try {
        await stream("JoinQueue", { ...queue, playerName: playerName() }, (update) => {
          if (update.matched) {
            const m = update.matched;
            closed = true;
            seats.set(m.matchId, { seat: m.seat ?? 0, token: m.seatToken, name: playerName(), rated: Boolean(m.rated) });
            location.hash = "#/m/" + m.matchId;
          } else if (update.waiting) {
            const w = update.waiting;
            const waited = Math.round(Number(w.waitedMs || 0) / 1000);
            state.textContent = `Waiting for players… place ${(w.position ?? 0) + 1} of ${w.waiting ?? 1} in the queue`
              + (waited ? ` · waited ${waited} s` : "");
          }
          pause = 500;
        }, { signal: controller.signal });
        return;  // the stream ended with the match
      } catch (err) {
        if (closed) return;
        if (err instanceof RpcError && ["invalid_argument", "not_found", "unauthenticated", "resource_exhausted"].includes(err.code)) {
          state.textContent = `Cannot wait in this queue: ${describe(err)}`;
          return;
        }
        say(`${describe(err)} — joining again in ${Math.round(pause / 1000)} s…`);
      }
      await new Promise((done) => setTimeout(done, pause));
      pause = Math.min(pause * 2, 8000);
    }
  })();
  return stop;
}

// --- leaderboards -----------------------------------------------------------------------------

// A game's leaderboard (ListLeaderboard, a page at a time) and this browser's own rating there
// (GetRating with its guest key, when it has one).
export async function leaderboard(name) {
  const games = ((await listGames()).games || []).filter((g) => g.playable);
  const game = games.find((g) => g.name === name) || games[0];
  where.textContent = "leaderboards";
  document.title = "Leaderboard — serai";
  if (!game) { main.replaceChildren(el("p", {}, "No game to rate.")); return; }
  const choice = el("nav", { class: "seats", "aria-label": "games" }, ...games.map((g) => el("a", {
    href: "#/leaderboard/" + g.name, class: "tab", "aria-current": g === game ? "page" : "false",
  }, g.title)));
  const mineBox = el("section", { "data-my-rating": "", "aria-label": "your rating" });
  const board = el("div", { "data-board": "" }, el("p", {}, "Loading…"));
  main.replaceChildren(el("h1", { class: "headline" }, `Leaderboard: ${game.title}`), choice, mineBox, board,
    el("p", {}, el("a", { href: "#/" }, "Back to the lobby")));
  say("");
  myRating(mineBox, game);
  const pages = [""];  // the page tokens of the pages shown so far: the last one is this page's
  const show = async () => {
    let answer;
    try {
      answer = await call("ListLeaderboard", { game: game.name, limit: 20, pageToken: pages[pages.length - 1] });
    } catch (err) { board.replaceChildren(el("p", {}, `The leaderboard could not be read (${describe(err)}).`)); return; }
    const rows = answer.ratings || [];
    const turn = (text, action, enabled, go) => el("button", { "data-action": action, disabled: !enabled, onclick: go }, text);
    board.replaceChildren(
      el("table", { class: "console leaderboard" },
        el("caption", {}, `The best rated players of ${game.title}`),
        el("thead", {}, el("tr", {}, ["place", "player", "rating", "rated matches"].map((h) => el("th", { scope: "col" }, h)))),
        el("tbody", {}, rows.length ? rows.map((r) => el("tr", { "data-rank": r.rank ?? 0 },
          el("td", {}, String((r.rank ?? 0) + 1)), el("td", {}, r.playerName || "?"),
          el("td", {}, ratingText(r.score) + (r.provisional ? " (provisional)" : "")), el("td", {}, String(r.games ?? 0))))
          : el("tr", {}, el("td", { colspan: 4 }, "No rated match yet: be the first (Play rated in the lobby).")))),
      el("p", {},
        turn("← Previous page", "previous-page", pages.length > 1, () => { pages.pop(); show(); }),
        turn("Next page →", "next-page", Boolean(answer.nextPageToken), () => { pages.push(answer.nextPageToken); show(); })));
  };
  await show();
}

async function myRating(box, game) {
  const key = guestKey(false);
  if (!key) { box.replaceChildren(el("p", {}, "You have no rating yet: Play rated in the lobby.")); return; }
  try {
    const answer = await call("GetRating", { game: game.name, playerToken: key });
    const r = answer.rating || {};
    const history = answer.history || [];
    box.replaceChildren(
      el("h2", {}, "Your rating"),
      el("p", {}, `${r.playerName || playerName()}: ${ratingText(r.score)}`
        + ` after ${plural(r.games ?? 0, "rated match")}${r.provisional ? " (provisional)" : ""}`),
      history.length ? el("ul", {}, history.slice(0, 5).map((c) => el("li", {},
        `${signed((c.score ?? 0) - (c.scoreBefore ?? 0))} → ${ratingText(c.score)}, place ${(c.place ?? 0) + 1}, `,
        el("a", { href: "#/replay/" + c.matchId }, `match ${c.matchId.slice(0, 8)}`)))) : null);
  } catch (err) { box.replaceChildren(el("p", {}, `Your rating could not be read (${describe(err)}).`)); }
}

// --- the matches this browser holds a seat in ------------------------------------------------

const KEPT_LISTED = 10;  // the newest kept seats: one GetMatch each, every visit

// "Your matches": each kept seat's match as that seat sees it (GetMatch with its token), with
// Resume, and Cancel while the match still waits for its players. A match the server no longer
// has (or whose token it refuses) is forgotten here.
async function myMatches() {
  const kept = seats.all().slice(0, KEPT_LISTED);
  if (!kept.length) return null;
  const rows = await Promise.all(kept.map(async ([matchId, mine]) => {
    try {
      return myMatch(matchId, mine, await call("GetMatch", { matchId, seatToken: mine.token }));
    } catch (err) {
      if (needsKey(err)) throw err;
      if (err instanceof RpcError && ["not_found", "permission_denied", "invalid_argument"].includes(err.code)) {
        seats.forget(matchId);
        return null;
      }
      return el("li", { "data-my-match": matchId }, `match ${matchId.slice(0, 8)}: could not be read (${describe(err)})`);
    }
  }));
  const shown = rows.filter(Boolean);
  if (!shown.length) return null;
  return el("section", { "aria-label": "your matches" },
    el("h2", {}, "Your matches"), el("ul", { class: "my-matches" }, shown));
}

function myMatch(matchId, mine, snap) {
  const match = snap.match, names = seatNames(match);
  const status = match.status.replace("MATCH_STATUS_", "").toLowerCase();
  const seated = (match.seats || []).filter((s) => s.joined).length;
  const myTurn = (snap.toAct || []).includes(mine.seat) && !snap.outcome;
  const state = status === "open" ? `waiting for players (${seated} of ${(match.seats || []).length} seated)`
    : status === "running" ? (myTurn ? "your turn" : "running")
      : `over: ${withNames(snap.outcome?.summary || "finished", names)}`;
  const cancel = async () => {
    try {
      const cancelled = await call("CancelMatch", { matchId, seatToken: mine.token });
      await lobby();
      say(`match ${matchId.slice(0, 8)} ${withNames(cancelled.outcome?.summary || "cancelled", names)}`);
    } catch (err) { say(describe(err)); }
  };
  return el("li", { "data-my-match": matchId, "data-status": status },
    el("b", {}, match.game), ` ${matchId.slice(0, 8)} · you are ${names[mine.seat] || "seat " + mine.seat} · `,
    el("span", { "data-state": "" }, state), " ",
    el("button", { class: status === "finished" ? "" : "primary", "data-action": "resume",
      onclick: () => (location.hash = "#/m/" + matchId) }, status === "finished" ? "See the end" : "Resume"),
    status === "open" ? el("button", { "data-action": "cancel-match", title: "no one has played: the match ends, cancelled",
      onclick: cancel }, "Cancel this match") : null,
    status === "finished" ? el("button", { "data-action": "forget", onclick: () => { seats.forget(matchId); lobby(); } }, "Forget") : null);
}

function matchList(matches, joinable) {
  if (!matches.length) return el("p", {}, "None.");
  return el("div", {}, matches.map((m) => {
    const taken = (m.seats || []).filter((s) => s.joined).map((s) => s.playerName || "?");
    const mine = seats.get(m.matchId);
    const actions = [];
    if (mine) actions.push(el("button", { class: "primary", onclick: () => (location.hash = "#/m/" + m.matchId) }, `Resume (${mine.name ? mine.name + ", " : ""}seat ${mine.seat})`));
    else if (joinable) {
      actions.push(el("button", { class: "primary", "data-action": "join", onclick: async () => {
        try {
          seats.set(m.matchId, await join(m.matchId, playerName()));
          location.hash = "#/m/" + m.matchId;
        } catch (err) { say(describe(err)); }
      } }, "Join"));
    }
    actions.push(el("button", { "data-action": "spectate", onclick: () => (location.hash = "#/m/" + m.matchId + "/spectate") }, "Watch"));
    return el("div", { class: "match", "data-match": m.matchId },
      el("b", {}, m.game), ` ${m.matchId.slice(0, 8)} · ${(m.seats || []).length} seats · `,
      taken.length ? "players: " + taken.join(", ") : "no one yet", " ", ...actions);
  }));
}
