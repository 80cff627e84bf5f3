// How a table looks: items drawn as cards, tokens and scores from the Presentation, coloured by
// the game's TableGuide (ListGames), and what the last event changed. No game code lives here:
// a game without a guide is drawn in the default colours.

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "onclick") node.addEventListener("click", value);
    else if (key === "style") for (const [name, v] of Object.entries(value)) node.style.setProperty(name, v);
    else if (value !== undefined && value !== null && value !== false) node.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) node.append(child);
  }
  return node;
}

// Who sits where, as people read it: each seat's player name, with the seat's number beside it
// where two seats share a name; "seat N" for a seat no one holds yet.
export function seatNames(match) {
  const given = (match.seats || []).map((s) => (s.joined && s.playerName) || "");
  return given.map((name, i) => {
    if (!name) return `seat ${i}`;
    return given.filter((other) => other === name).length > 1 ? `${name} (seat ${i})` : name;
  });
}

// A game's words name seats by number ("Seat 0 wins the match", "seat 1 to play"); the table
// says the players' names instead. No game code: any "seat N" in a game's text is replaced.
export function withNames(text, names) {
  return (text || "").replace(/\b[Ss]eats? (\d+(?:(?:, | and )\d+)*)\b/g, (whole, list) => {
    const seats = list.match(/\d+/g).map(Number);
    if (seats.some((n) => !names[n] || names[n] === `seat ${n}`)) return whole;
    const called = seats.map((n) => names[n]);
    return called.length === 1 ? called[0] : called.slice(0, -1).join(", ") + " and " + called.at(-1);
  });
}

// The guide's looks by word, and the zone meanings by id; both empty for a game without a guide.
export function readGuide(info) {
  const guide = (info && info.guide) || {};
  const looks = new Map((guide.looks || []).map((look) => [look.word, look]));
  return { howToPlay: guide.howToPlay || "", zones: guide.zones || {}, looks };
}

// An item's look: its label's, else that of the first of its words that has one ("discarded
// diamond" by "diamond", "papyrus/wheat" by "papyrus").
export function lookOf(guide, label) {
  if (guide.looks.has(label)) return guide.looks.get(label);
  for (const word of label.toLowerCase().split(/[^a-z]+/)) {
    if (word && guide.looks.has(word)) return guide.looks.get(word);
  }
  return null;
}

// What a zone id means: "hand0" is explained by "hand".
export function zoneHelp(guide, id) {
  return guide.zones[id] || guide.zones[(id || "").replace(/\d+$/, "")] || "";
}

// The guide's rules in short, as a <details> that opens on demand.
export function howToPlay(guide, title) {
  if (!guide.howToPlay && !Object.keys(guide.zones).length) return null;
  const zones = Object.entries(guide.zones);
  return el("details", { class: "rules", "data-rules": "" },
    el("summary", {}, `How to play ${title || ""}`.trim()),
    ...guide.howToPlay.split(/\n\s*\n/).map((text) => el("p", {}, text)),
    zones.length ? el("dl", {}, zones.flatMap(([id, text]) => [el("dt", {}, id.replaceAll("_", " ")), el("dd", {}, text)])) : null);
}

// One item of a zone: a card (a coloured face with its symbol, or a back when hidden), a round
// token, a score, or a line of text. `count` above 1 shows as a badge; the screen reader hears
// "3 × diamond (7 5 5)", and the tooltip says what the item is.
export function drawItem(item, guide, changed) {
  const count = item.count || 0;
  const kind = item.kind || "card";
  const look = lookOf(guide, item.label || "");
  const spoken = `${count > 1 || item.hidden ? count + " × " : ""}${item.label}${item.value ? " (" + item.value + ")" : ""}`;
  const classes = ["item", kind, item.hidden ? "hidden" : "", changed ? "changed" : ""].filter(Boolean).join(" ");
  if (kind === "text") {
    return el("div", { class: classes }, el("b", {}, item.label), item.value ? ": " + item.value : "");
  }
  const style = look && look.colour ? { "--look": look.colour } : {};
  const tip = [look && look.help, item.hidden ? "face down" : ""].filter(Boolean).join(" · ") || item.label;
  const symbol = look && look.symbol && !item.hidden ? el("span", { class: "symbol", "aria-hidden": "true" }, look.symbol) : null;
  if (kind === "score") {
    // A score reads as one figure beside its name: "seal 2", "score 34".
    return el("span", { class: classes, style, title: tip, role: "img", "aria-label": `${item.label} ${item.value || count}`, "data-label": item.label },
      symbol, el("span", { class: "label", "aria-hidden": "true" }, item.label),
      el("span", { class: "figure", "aria-hidden": "true" }, item.value || String(count)));
  }
  const badge = count > 1 || (item.hidden && count !== 1) || (count === 0 && !item.value)
    ? el("span", { class: "count", "aria-hidden": "true" }, `${count}×`) : null;
  return el("span", { class: classes, style, title: tip, role: "img", "aria-label": spoken, "data-label": item.label },
    badge, symbol,
    el("span", { class: "label", "aria-hidden": "true" }, item.label),
    item.value ? el("span", { class: "value", "aria-hidden": "true" }, item.value) : null);
}

// What each item of a presentation is, by zone and label, to tell what the next one changed.
export function itemsByKey(presentation) {
  const keyed = new Map();
  for (const zone of (presentation && presentation.zones) || []) {
    for (const item of zone.items || []) {
      keyed.set(`${zone.id}\u0000${item.label}`, `${item.count || 0}|${item.value || ""}|${item.hidden ? 1 : 0}`);
    }
  }
  return keyed;
}

// The keys of the items that differ from `before` (new, or another count or value), and the ids
// of the zones that changed (an item came, went or changed); nothing on the first drawing.
export function changes(before, presentation) {
  const items = new Set(), zones = new Set();
  if (!before) return { items, zones };
  const after = itemsByKey(presentation);
  for (const [key, what] of after) {
    if (before.get(key) !== what) { items.add(key); zones.add(key.split("\u0000")[0]); }
  }
  for (const key of before.keys()) if (!after.has(key)) zones.add(key.split("\u0000")[0]);
  return { items, zones };
}

// Each seat's running score: the score items of the zones it owns ("seal 1", "score 34").
export function scores(presentation) {
  const bySeat = new Map();
  for (const zone of (presentation && presentation.zones) || []) {
    if (zone.owner === undefined) continue;
    for (const item of zone.items || []) {
      if (item.kind !== "score") continue;
      const text = `${item.label} ${item.value || item.count || 0}`;
      bySeat.set(zone.owner, [...(bySeat.get(zone.owner) || []), text]);
    }
  }
  return bySeat;
}

// A presentation's zones drawn into `container`: each titled with its owner's name, explained by
// the guide, its items drawn as cards; `changed` (from changes()) marks what the last step did.
export function drawTable(container, presentation, { guide, names, viewer, changed }) {
  const title = (zone) => {
    const named = withNames(zone.title, names);
    if (zone.owner === undefined || named !== (zone.title || "")) return named;  // named already
    return `${named} — ${names[zone.owner] || "seat " + zone.owner}`;
  };
  container.replaceChildren(...(presentation.zones || []).map((zone) => {
    const help = zoneHelp(guide, zone.id);
    const named = title(zone);
    const classes = ["zone", viewer !== undefined && zone.owner === viewer ? "mine" : "",
      changed.zones.has(zone.id) ? "changed" : ""].filter(Boolean).join(" ");
    return el("section", { class: classes, "data-zone": zone.id, "aria-label": named, title: help || null },
      el("h3", {}, named, help ? el("span", { class: "zone-help" }, help) : null),
      zone.note ? el("div", { class: "note" }, withNames(zone.note, names)) : null,
      el("div", { class: "items" }, (zone.items || []).length
        ? zone.items.map((item) => drawItem(
          { ...item, label: withNames(item.label, names), value: withNames(item.value, names) },
          guide, changed.items.has(`${zone.id}\u0000${item.label}`)))
        : el("span", { class: "value" }, "empty")));
  }));
}
