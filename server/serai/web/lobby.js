// The lobby: the games (create a match, play a bot), the open and running matches.
import { call, hasApiKey, houseBots, requestId, setApiKey } from "/connect.js";
import { el, howToPlay, readGuide } from "/look.js";
import {
  describe, join, listGames, needsKey, playerName, plural, reroute, say, seats,
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
    el("h2", {}, "Games"),
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
      el("button", { "data-action": "bot", onclick: () => create(true) }, "Play against a"), " ", botChoice));
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
