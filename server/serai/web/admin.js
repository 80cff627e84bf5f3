// The operator's console: every tenant's matches, a match as each seat sees it (hidden parts
// and all), ending a match (or cancelling an open one), the API keys and their limits, the house
// bots and the /metrics figures. It reads /admin/api/* with the admin token (serve
// --admin-token), kept in this tab only.
import { call } from "/connect.js";
import { drawTable, el, readGuide, seatNames, withNames } from "/look.js";

// Each game's guide (its items' colours), from ListGames, which needs no key.
let games = null;
async function guideOf(game) {
  games = games || call("ListGames", {}).then((answer) => answer.games || []).catch(() => []);
  return readGuide((await games).find((g) => g.name === game));
}

const main = document.getElementById("main");
const statusLine = document.getElementById("status");
const TOKEN = "serai.admin";

function say(text) { statusLine.textContent = text || ""; }

async function api(method, path) {
  const response = await fetch("/admin/api/" + path, {
    method, headers: { Authorization: "Bearer " + (sessionStorage.getItem(TOKEN) || "") },
  });
  let body = {};
  try { body = await response.json(); } catch { /* not JSON */ }
  if (response.status === 401) { sessionStorage.removeItem(TOKEN); tokenForm("The token was refused."); throw new Error("refused"); }
  if (!response.ok) throw new Error(body.message || response.statusText);
  return body;
}

function tokenForm(why) {
  const input = el("input", { id: "admin-token", type: "password", size: 40, autocomplete: "off" });
  const use = () => { sessionStorage.setItem(TOKEN, input.value.trim()); overview(); };
  input.addEventListener("keydown", (e) => { if (e.key === "Enter") use(); });
  main.replaceChildren(
    el("h1", { class: "headline" }, "The operator's console"),
    el("p", {}, why || "Paste the admin token (serve --admin-token). It stays in this tab."),
    el("p", {}, el("label", { for: "admin-token" }, "Admin token "), input, " ",
      el("button", { class: "primary", "data-action": "use-token", onclick: use }, "Open the console")));
}

const when = (ms) => (Number(ms) ? new Date(Number(ms)).toISOString().replace("T", " ").slice(0, 19) : "—");

function matchRows(matches, status) {
  return matches.map((m) => {
    const names = seatNames(m).join(", ");
    return el("tr", { "data-match": m.matchId },
      el("td", {}, m.game), el("td", {}, el("code", {}, m.matchId)), el("td", {}, status),
      el("td", {}, names), el("td", {}, String(m.version || 0)), el("td", {}, when(m.createdAtMs)),
      el("td", {},
        el("button", { "data-action": "inspect", onclick: () => inspect(m.matchId) }, "State"),
        status === "running" ? el("button", { "data-action": "end", onclick: () => end(m.matchId) }, "End") : null,
        status === "open" ? el("button", { "data-action": "cancel", onclick: () => end(m.matchId, true) }, "Cancel") : null));
  });
}

function table(caption, heads, rows) {
  return el("table", { class: "console" }, el("caption", {}, caption),
    el("thead", {}, el("tr", {}, heads.map((h) => el("th", { scope: "col" }, h)))),
    el("tbody", {}, rows.length ? rows : el("tr", {}, el("td", { colspan: heads.length }, "none"))));
}

async function overview() {
  if (!sessionStorage.getItem(TOKEN)) return tokenForm();
  let data;
  try { data = await api("GET", "overview"); } catch (err) { if (err.message !== "refused") say(err.message); return; }
  const heads = ["game", "match", "status", "players", "version", "created (UTC)", ""];
  const bots = data.houseBots;
  main.replaceChildren(
    el("h1", { class: "headline" }, "Matches by tenant ", el("button", { "data-action": "refresh", onclick: overview }, "Refresh")),
    ...data.tenants.map((t) => el("section", { class: "tenant", "data-tenant": t.tenant },
      table(`tenant ${t.tenant ? "“" + t.tenant + "”" : "without a key"}`, heads,
        [...matchRows(t.running, "running"), ...matchRows(t.open, "open"), ...matchRows(t.finished, "finished")]))),
    el("div", { id: "inspected" }),
    el("h2", {}, "House bots"),
    el("p", { "data-bots": "" }, bots ? `${bots.running} playing of at most ${bots.limit}; `
      + Object.entries(bots.strategies).map(([game, s]) => `${game}: ${s.join(", ")}`).join(" · ") : "off (--house-bots 0)"),
    table("API keys and their limits (0: the server's own)", ["key", "created", "revoked", "open matches", "moves/s", "burst", "player tokens"],
      data.keys.map((k) => el("tr", { "data-key": k.name }, el("td", {}, k.name), el("td", {}, when(k.createdMs)),
        el("td", {}, Number(k.revokedMs) ? when(k.revokedMs) : "no"), el("td", {}, String(k.maxOpenMatches)),
        el("td", {}, String(k.moveRate)), el("td", {}, String(k.moveBurst)), el("td", {}, k.playerTokens ? "yes" : "no")))),
    el("details", { class: "figures" }, el("summary", {}, `Figures (/metrics, ${data.figures.length} samples)`),
      table("the samples of /metrics", ["sample", "value"],
        data.figures.map(([name, value]) => el("tr", {}, el("td", {}, el("code", {}, name)), el("td", {}, value))))));
  say("");
}

async function inspect(matchId) {
  let data;
  try { data = await api("GET", "matches/" + matchId); } catch (err) { say(err.message); return; }
  const names = seatNames(data.match);
  const guide = await guideOf(data.match.game);
  const none = { items: new Set(), zones: new Set() };
  const views = data.views.map((v) => {
    const zones = el("div", { class: "zones" });
    drawTable(zones, v.presentation, { guide, names, viewer: v.seat ?? undefined, changed: none });
    return el("section", { class: "view", "data-view": v.seat ?? "spectator" },
      el("h3", {}, v.seat === null || v.seat === undefined ? "as a spectator sees it" : `as ${names[v.seat]} sees it`),
      el("p", { class: "headline" }, withNames(v.presentation.headline || "", names)), zones);
  });
  document.getElementById("inspected").replaceChildren(el("section", { class: "inspected", "data-inspected": matchId, "aria-label": "match state" },
    el("h2", {}, `Match ${matchId} (${data.match.game}, tenant ${data.tenant || "without a key"})`),
    el("p", {}, `status ${data.match.status.replace("MATCH_STATUS_", "").toLowerCase()} · version ${data.match.version || 0} · players ${names.join(", ")}`),
    ...(views.length ? views : [el("p", {}, "No deal yet: the match waits for its players.")])));
}

// Ends a running match, or cancels an open one before it starts (the same call: the server
// tells which by the match's status).
async function end(matchId, open = false) {
  const question = open ? `Cancel match ${matchId} before it starts? Its seated players are told.`
    : `End match ${matchId}? No one wins; its players are told.`;
  if (!confirm(question)) return;
  try {
    const snap = await api("POST", `matches/${matchId}/end`);
    say(`match ${matchId} ${open ? "cancelled" : "ended"}: ${snap.outcome?.summary || ""}`);
  } catch (err) { say(err.message); return; }
  overview();
}

overview();
