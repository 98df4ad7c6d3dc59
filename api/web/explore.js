// The explorer page (GET /explore): draws what GraphQL `neighbourhood` returns with cytoscape.js,
// nothing more. Every datum comes from POST graphql with the signed-in API key; every text is put
// in the page as text (never as HTML). window.recollectExplorer lets the browser test read what
// is drawn.
"use strict";

(() => {
  const config = JSON.parse(document.getElementById("explorer-config").textContent);
  const $ = (id) => document.getElementById(id);
  const KEY_STORE = "recollect-api-key";
  const state = {
    key: sessionStorage.getItem(KEY_STORE) || "",
    user: null,
    seeds: [],
    mode: "neighbourhood", // or "overview": the most-mentioned entities
    view: null,
    selected: null,
    // bumped when the key or the user changes: an answer that arrives later, for the previous
    // user, is dropped instead of drawn into the panel
    generation: 0,
    draws: 0,
    firstDrawMs: null, // the first view's request, drawing and layout
    firstDrawAt: null, // when it was done, in ms since the page began to load
  };

  // -- GraphQL --------------------------------------------------------------------------------

  class ApiError extends Error {
    constructor(message, code) {
      super(message);
      this.code = code;
    }
  }

  async function gql(query, variables) {
    const headers = { "Content-Type": "application/json" };
    if (state.key) headers.Authorization = `Bearer ${state.key}`;
    const response = await fetch(config.graphql, {
      method: "POST",
      headers,
      body: JSON.stringify({ query, variables }),
    });
    const body = await response.json();
    if (body.errors && body.errors.length) {
      const first = body.errors[0];
      throw new ApiError(first.message, (first.extensions || {}).code || "ERROR");
    }
    return body.data;
  }

  const VIEW_ARGS = "$u: ID!, $keys: [String!]!, $depth: Int, $limit: Int, $types: [String!], " +
    "$current: Boolean, $entityTypes: [String!], $since: DateTime, $until: DateTime";
  const VIEW_CALL = "userId: $u, keys: $keys, depth: $depth, limit: $limit, types: $types, " +
    "current: $current, entityTypes: $entityTypes, since: $since, until: $until";
  const EDGE_FIELDS = "type source target role count current validFrom validTo firstSeen lastSeen";
  const Q = {
    users: "query { users }",
    search: `query($u: ID!, $s: String, $t: String, $n: Int) {
      entities(userId: $u, search: $s, type: $t, first: $n) {
        totalCount edges { node { key label type aliases mentionCount } } } }`,
    view: `query(${VIEW_ARGS}) { neighbourhood(${VIEW_CALL}) {
      nodes { key label type aliases mentionCount firstSeen lastSeen depth }
      edges { ${EDGE_FIELDS} } truncated edgesTruncated missing } }`,
    overview: `query($u: ID!, $limit: Int, $types: [String!], $current: Boolean,
      $entityTypes: [String!], $since: DateTime, $until: DateTime) {
      overview(userId: $u, limit: $limit, types: $types, current: $current,
        entityTypes: $entityTypes, since: $since, until: $until) {
      nodes { key label type aliases mentionCount firstSeen lastSeen depth }
      edges { ${EDGE_FIELDS} } truncated edgesTruncated missing } }`,
    card: `query(${VIEW_ARGS}, $key: String!) {
      entity(userId: $u, key: $key) { key label type aliases mentionCount firstSeen lastSeen }
      neighbourhood(${VIEW_CALL}) { truncated nodes { key label type }
        edges { ${EDGE_FIELDS} evidence(first: 3) { id text speaker occurredAt } } } }`,
    timeline: `query($u: ID!, $key: String!, $n: Int) { entity(userId: $u, key: $key) {
      label memories(first: $n) { id text speaker occurredAt sessionId } } }`,
  };

  // -- small helpers --------------------------------------------------------------------------

  const present = (children) => children.filter((c) => c !== null && c !== undefined);

  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    Object.assign(node, props || {});
    node.append(...present(children));
    return node;
  }

  function fill(node, ...children) {
    node.replaceChildren(...present(children));
  }

  const colourOf = (type) => config.colours[type] || config.colours.default;
  const day = (iso) => (iso ? iso.slice(0, 10) : "");
  const edgeId = (e) => `${e.type}|${e.source}|${e.target}`;
  const edgeLabel = (e) => (e.role ? `${e.type} (${e.role})` : e.type);
  const NEAR_LABELS = 30;
  const nodeSize = (mentions) => Math.min(90, 18 + 9 * Math.log2(1 + mentions));

  function say(text) {
    $("status").textContent = text;
  }

  function notice(lines) {
    const box = $("notice");
    box.textContent = lines.join(" ");
    box.hidden = lines.length === 0;
  }

  function failed(error) {
    if (error instanceof ApiError && error.code === "UNAUTHENTICATED") {
      showSignIn(error.message);
      return;
    }
    say(`${error.code || "Error"}: ${error.message}`);
  }

  // -- the graph ------------------------------------------------------------------------------

  const cy = cytoscape({
    container: $("graph"),
    minZoom: 0.05,
    maxZoom: 4,
    style: [
      {
        selector: "node",
        style: {
          "background-color": "data(colour)",
          width: "data(size)",
          height: "data(size)",
          label: "data(label)",
          "font-size": 11,
          "text-valign": "bottom",
          "text-margin-y": 3,
          "text-outline-color": "#ffffff",
          "text-outline-width": 2,
          "min-zoomed-font-size": 7,
          "border-width": 1,
          "border-color": "#ffffff",
        },
      },
      { selector: "node[?seed]", style: { "border-width": 3, "border-color": "#1f2933" } },
      { selector: "node:selected", style: { "border-width": 4, "border-color": "#2f6db5" } },
      {
        selector: "edge",
        style: {
          width: "mapData(count, 1, 20, 1, 5)",
          "line-color": "#9aa5b1",
          "target-arrow-color": "#9aa5b1",
          "target-arrow-shape": "triangle",
          "arrow-scale": 0.8,
          "curve-style": "bezier",
          label: "data(label)",
          "font-size": 9,
          color: "#52606d",
          "text-rotation": "autorotate",
          "text-background-color": "#ffffff",
          "text-background-opacity": 0.8,
          "text-background-padding": 1,
          "min-zoomed-font-size": 20, // labels appear once zoomed in (from 2.2x)
        },
      },
      {
        selector: "edge.near", // the selected entity's relations are labelled at any zoom
        style: { "min-zoomed-font-size": 0, color: "#1f2933", "line-color": "#52606d", "z-index": 9 },
      },
      { selector: "edge[type = 'RELATED_TO']", style: { "line-color": "#d5dae0", "target-arrow-shape": "none" } },
      { selector: "edge[!current]", style: { "line-style": "dashed", opacity: 0.6 } },
    ],
  });

  function filters() {
    const checked = (id) => [...$(id).querySelectorAll("input:checked")].map((i) => i.value);
    const all = (id) => $(id).querySelectorAll("input").length;
    const types = checked("relation-types");
    const entityTypes = checked("entity-types");
    const since = $("since").value ? `${$("since").value}T00:00:00Z` : null;
    const until = $("until").value ? `${$("until").value}T23:59:59Z` : null;
    return {
      depth: Number($("depth").value),
      limit: Math.max(1, Math.min(config.maxNodes, Number($("limit").value) || config.defaultLimit)),
      types: types.length === all("relation-types") ? null : types,
      entityTypes: entityTypes.length === all("entity-types") ? null : entityTypes,
      current: $("current").checked,
      since,
      until,
    };
  }

  async function draw() {
    const overview = state.mode === "overview";
    if (!state.user || (!overview && state.seeds.length === 0)) return;
    const started = performance.now();
    const { depth, ...rest } = filters();
    const asked = overview ? { u: state.user, ...rest } : { u: state.user, keys: state.seeds, depth, ...rest };
    say("Loading…");
    let view;
    try {
      const data = await gql(overview ? Q.overview : Q.view, asked);
      view = overview ? data.overview : data.neighbourhood;
    } catch (error) {
      failed(error);
      return;
    }
    state.view = { ...view, asked };
    render(view);
    state.draws += 1;
    if (state.firstDrawMs === null) {
      state.firstDrawMs = performance.now() - started;
      state.firstDrawAt = performance.now();
    }
    $("graph").dataset.draws = String(state.draws);
    $("graph").dataset.drawMs = String(Math.round(performance.now() - started));
    for (const id of ["show-cypher", "export-graphml", "export-png"]) $(id).disabled = false;
  }

  function render(view) {
    const keep = new Set(view.nodes.map((n) => n.key));
    const edgeIds = new Set(view.edges.map(edgeId));
    const placed = new Map();
    cy.batch(() => {
      cy.remove(cy.elements().filter((item) =>
        item.isNode() ? !keep.has(item.id()) : !edgeIds.has(item.id())));
      cy.nodes().forEach((n) => placed.set(n.id(), { ...n.position() }));
      for (const n of view.nodes) {
        const data = {
          id: n.key,
          label: n.label,
          type: n.type,
          mentions: n.mentionCount,
          colour: colourOf(n.type),
          size: nodeSize(n.mentionCount),
          depth: n.depth,
          seed: state.seeds.includes(n.key),
        };
        const existing = cy.getElementById(n.key);
        if (existing.nonempty()) existing.data(data);
        else cy.add({ group: "nodes", data });
      }
      for (const e of view.edges) {
        if (cy.getElementById(edgeId(e)).nonempty()) continue;
        cy.add({ group: "edges", data: { id: edgeId(e), ...e, label: edgeLabel(e) } });
      }
    });
    const fresh = cy.nodes().filter((n) => !placed.has(n.id()));
    if (fresh.nonempty()) layout(fresh, placed);
    const lines = [];
    if (view.truncated && state.mode === "overview") {
      lines.push(`The ${view.nodes.length} most-mentioned entities are shown, of more: raise ` +
        `the limit (up to ${config.maxNodes}) or narrow the filters.`);
    } else if (view.truncated) {
      lines.push(`More entities lie within depth ${state.view.asked.depth} than the limit of ` +
        `${state.view.asked.limit}: the strongest are shown. Raise the limit (up to ` +
        `${config.maxNodes}) or narrow the filters.`);
    }
    if (view.edgesTruncated) lines.push("Only the strongest relations among them are drawn.");
    if (view.missing.length) lines.push(`No entity ${view.missing.join(", ")} for this user.`);
    notice(lines);
    say(`${view.nodes.length} entities, ${view.edges.length} relations. ` +
      "Click one for its card; double-click to expand it.");
  }

  // fcose keeps drawn entities where they are only in its slow "proof" quality: worth it when a
  // few entities join a small view (an expansion), not for a new view of hundreds, which is laid
  // out afresh ("draft", a spectral layout alone, past 400 entities)
  const INCREMENTAL_MAX = 400;

  function layout(fresh, placed) {
    const total = cy.nodes().length;
    const incremental = placed.size > 0 && total <= INCREMENTAL_MAX && fresh.length <= 60;
    if (incremental) {
      // a new entity starts beside a drawn neighbour, so the drawn ones move little
      fresh.forEach((n) => {
        const anchor = n.neighborhood("node").filter((m) => placed.has(m.id()));
        if (anchor.nonempty()) {
          const p = placed.get(anchor[0].id());
          n.position({ x: p.x + Math.random() * 40 - 20, y: p.y + Math.random() * 40 - 20 });
        }
      });
    }
    cy.layout({
      name: "fcose",
      quality: incremental ? "proof" : total > INCREMENTAL_MAX ? "draft" : "default",
      randomize: !incremental,
      animate: false,
      idealEdgeLength: () => 80,
      nodeRepulsion: () => 6500,
      padding: 24,
    }).run();
  }

  function expand(key) {
    if (state.mode === "overview") {
      state.mode = "neighbourhood";
      state.seeds = [key];
    } else if (!state.seeds.includes(key)) {
      state.seeds = [...state.seeds, key].slice(-config.maxKeys);
    }
    draw();
  }

  function start(key) {
    state.mode = "neighbourhood";
    state.seeds = [key];
    cy.elements().remove();
    return draw().then(() => select(key));
  }

  function showOverview() {
    state.mode = "overview";
    state.seeds = [];
    cy.elements().remove();
    return draw();
  }

  cy.on("tap", "node", (event) => select(event.target.id()));
  cy.on("dbltap", "node", (event) => expand(event.target.id()));

  // -- the card and the timeline --------------------------------------------------------------

  function relationItem(key, edge, labels) {
    const out = edge.source === key;
    const other = out ? edge.target : edge.source;
    const link = el("a", { textContent: labels.get(other) || other, title: other });
    link.addEventListener("click", () => select(other));
    const validity = [];
    if (edge.validFrom) validity.push(`since ${day(edge.validFrom)}`);
    if (edge.validTo) validity.push(`until ${day(edge.validTo)} (superseded)`);
    if (!edge.validFrom && edge.firstSeen) {
      validity.push(`seen ${day(edge.firstSeen)}` +
        (day(edge.lastSeen) !== day(edge.firstSeen) ? ` to ${day(edge.lastSeen)}` : ""));
    }
    const evidence = el("ul", { className: "evidence" });
    for (const m of edge.evidence) {
      evidence.append(el("li", {},
        el("q", { textContent: m.text }),
        el("cite", { textContent: `${m.speaker || "unknown speaker"}, ${day(m.occurredAt)}` })));
    }
    return el("div", { className: `relation${edge.current ? "" : " history"}` },
      el("div", { className: "what" }, `${out ? "→" : "←"} ${edgeLabel(edge)} `, link,
        ` ×${edge.count}`),
      el("div", { className: "meta", textContent: validity.join(" · ") }),
      evidence);
  }

  async function select(key) {
    state.selected = key;
    cy.nodes().unselect();
    cy.edges().removeClass("near");
    const edges = cy.getElementById(key).select().connectedEdges();
    if (edges.length <= NEAR_LABELS) edges.addClass("near"); // a hub's labels wait for the zoom
    const panel = $("panel");
    const generation = state.generation;
    let data;
    try {
      const f = filters();
      data = await gql(Q.card, {
        ...f, u: state.user, key, keys: [key], depth: 1, entityTypes: null,
        limit: Math.min(f.limit, config.defaultLimit),
      });
    } catch (error) {
      failed(error);
      return;
    }
    if (state.selected !== key || state.generation !== generation) return;
    const card = data.entity;
    if (!card) {
      fill(panel, el("p", { textContent: `No entity ${key} for this user.` }));
      return;
    }
    const labels = new Map(data.neighbourhood.nodes.map((n) => [n.key, n.label]));
    const own = data.neighbourhood.edges.filter((e) => e.source === key || e.target === key);
    const expandButton = el("button", { type: "button", textContent: "Expand" });
    expandButton.addEventListener("click", () => expand(key));
    const timelineButton = el("button", { type: "button", textContent: "Timeline" });
    timelineButton.addEventListener("click", () => timeline(key, card.label));
    fill(panel, 
      el("div", { className: "card-head" },
        el("h2", { textContent: card.label }),
        el("span", {
          className: "badge", textContent: card.type,
          style: `background:${colourOf(card.type)}`,
        })),
      el("p", { className: "meta", textContent: card.key }),
      el("p", { className: "meta", textContent:
        `${card.mentionCount} mentions · first ${day(card.firstSeen)} · last ${day(card.lastSeen)}` }),
      card.aliases.length ? el("p", { className: "meta", textContent:
        `Also called: ${card.aliases.join(", ")}` }) : null,
      el("div", { className: "card-actions" }, expandButton, timelineButton),
      el("h3", { textContent: `Relations (${own.length}${data.neighbourhood.truncated ? "+" : ""})` }),
      ...own.map((e) => relationItem(key, e, labels)),
      own.length ? null : el("p", { className: "hint", textContent: "No relations pass the filters." }),
    );
    panel.dataset.card = key;
  }

  async function timeline(key, label) {
    const panel = $("panel");
    const generation = state.generation;
    let data;
    try {
      data = await gql(Q.timeline, { u: state.user, key, n: config.timelineLength });
    } catch (error) {
      failed(error);
      return;
    }
    if (state.generation !== generation) return;
    const memories = [...data.entity.memories].sort((a, b) =>
      (a.occurredAt || "").localeCompare(b.occurredAt || ""));
    const back = el("button", { type: "button", textContent: "Back to the card" });
    back.addEventListener("click", () => select(key));
    const list = el("ul", { className: "timeline" });
    let current = "";
    for (const m of memories) {
      if (day(m.occurredAt) !== current) {
        current = day(m.occurredAt);
        list.append(el("h4", { textContent: current }));
      }
      list.append(el("li", {},
        el("q", { textContent: m.text }),
        el("cite", { textContent: `${m.speaker || "unknown speaker"} · ${m.sessionId || ""}` })));
    }
    fill(panel, 
      el("div", { className: "card-head" }, el("h2", { textContent: `${label}: timeline` })),
      el("p", { className: "meta", textContent:
        `The newest ${memories.length} memories that mention ${label}, oldest first.` }),
      el("div", { className: "card-actions" }, back),
      list);
  }

  // -- Cypher for Neo4j Browser, GraphML and PNG ----------------------------------------------

  const cypherString = (s) => `'${s.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
  const cypherList = (items) => (items === null ? "null" : `[${items.map(cypherString).join(", ")}]`);
  const seconds = (iso) => (iso ? String(Math.floor(Date.parse(iso) / 1000)) : "null");

  function browserCypher() {
    const a = state.view.asked;
    const keys = cy.nodes().map((n) => n.id()).sort();
    const params = `:params {userId: ${cypherString(state.user)}, keys: ${cypherList(keys)}, ` +
      `types: ${cypherList(a.types)}, current: ${a.current}, since: ${seconds(a.since)}, ` +
      `until: ${seconds(a.until)}}`;
    return `${params}\n\n${config.browserQuery}`;
  }

  function download(name, blob) {
    const link = el("a", { href: URL.createObjectURL(blob), download: name });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 1000);
  }

  function xml(s) {
    return String(s).replace(/[<>&"']/g, (c) =>
      ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&apos;" })[c]);
  }

  function graphml() {
    const keys = [
      ["label", "node", "string"], ["type", "node", "string"], ["mentions", "node", "int"],
      ["relation", "edge", "string"], ["role", "edge", "string"], ["count", "edge", "int"],
      ["current", "edge", "boolean"],
    ];
    const out = ['<?xml version="1.0" encoding="UTF-8"?>',
      `<graphml xmlns="${config.graphmlNamespace}">`];
    for (const [name, target, kind] of keys) {
      out.push(`  <key id="${name}" for="${target}" attr.name="${name}" attr.type="${kind}"/>`);
    }
    out.push('  <graph id="recollect" edgedefault="directed">');
    cy.nodes().forEach((n) => {
      out.push(`    <node id="${xml(n.id())}"><data key="label">${xml(n.data("label"))}</data>` +
        `<data key="type">${xml(n.data("type"))}</data>` +
        `<data key="mentions">${n.data("mentions")}</data></node>`);
    });
    cy.edges().forEach((e) => {
      out.push(`    <edge source="${xml(e.data("source"))}" target="${xml(e.data("target"))}">` +
        `<data key="relation">${xml(e.data("type"))}</data>` +
        (e.data("role") ? `<data key="role">${xml(e.data("role"))}</data>` : "") +
        `<data key="count">${e.data("count")}</data>` +
        `<data key="current">${e.data("current")}</data></edge>`);
    });
    out.push("  </graph>", "</graphml>");
    return out.join("\n");
  }

  const fileStem = () =>
    `recollect-${state.user}-${(state.seeds[0] || state.mode).replace(/[^\w-]+/g, "_")}`;

  $("show-cypher").addEventListener("click", () => {
    $("cypher-text").textContent = browserCypher();
    $("cypher-dialog").showModal();
  });
  $("cypher-copy").addEventListener("click", () => {
    const range = document.createRange();
    range.selectNodeContents($("cypher-text"));
    getSelection().removeAllRanges();
    getSelection().addRange(range);
    if (navigator.clipboard) navigator.clipboard.writeText($("cypher-text").textContent).catch(() => {});
  });
  $("export-graphml").addEventListener("click", () =>
    download(`${fileStem()}.graphml`, new Blob([graphml()], { type: "application/xml" })));
  $("export-png").addEventListener("click", () =>
    download(`${fileStem()}.png`, cy.png({ output: "blob", full: true, scale: 2, bg: "#ffffff" })));

  // -- search, users, signing in --------------------------------------------------------------

  let searchTimer = null;
  let searchSeq = 0;

  async function search(text) {
    const seq = ++searchSeq;
    const list = $("results");
    if (!text.trim()) {
      list.hidden = true;
      return;
    }
    let data;
    try {
      data = await gql(Q.search, { u: state.user, s: text, n: 50 });
    } catch (error) {
      failed(error);
      return;
    }
    if (seq !== searchSeq) return;
    const found = data.entities.edges.map((e) => e.node)
      .sort((a, b) => b.mentionCount - a.mentionCount).slice(0, 15);
    fill(list, ...found.map((n) => {
      const item = el("li", { role: "option" },
        el("span", { className: "swatch", style: `background:${colourOf(n.type)}` }),
        el("span", { textContent: n.label }),
        n.aliases.length ? el("small", { textContent: n.aliases.join(", ") }) : null,
        el("small", { textContent: `${n.type} · ${n.mentionCount}` }));
      item.dataset.key = n.key;
      item.addEventListener("click", () => {
        list.hidden = true;
        $("search").value = n.label;
        start(n.key);
      });
      return item;
    }));
    if (!found.length) fill(list, el("li", { textContent: "No entity matches." }));
    list.hidden = false;
  }

  $("search").addEventListener("input", (event) => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(() => search(event.target.value), 200);
  });
  $("search").addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      const first = $("results").querySelector("li[data-key]");
      if (first) first.click();
    }
    if (event.key === "Escape") $("results").hidden = true;
  });

  async function people() {
    const data = await gql(Q.overview, { u: state.user, limit: 10, entityTypes: ["person"], types: [] });
    const found = data.overview.nodes;
    fill($("people"), ...found.map((n) => {
      const chip = el("button", { type: "button", textContent: n.label, title: n.key });
      chip.addEventListener("click", () => start(n.key));
      return chip;
    }));
    $("people-section").hidden = found.length === 0;
    return found;
  }

  const PANEL_HINT = $("panel").textContent.trim();

  // a new key or user: nothing of the previous one stays on the page, nor arrives later
  function forgetShown() {
    state.generation += 1;
    state.selected = null;
    const panel = $("panel");
    fill(panel, el("p", { className: "hint", textContent: PANEL_HINT }));
    delete panel.dataset.card;
  }

  async function chooseUser(user) {
    forgetShown();
    state.user = user;
    state.seeds = [];
    state.view = null;
    cy.elements().remove();
    notice([]);
    const params = new URLSearchParams(location.search);
    if (params.get("depth")) $("depth").value = params.get("depth");
    if (params.get("limit")) $("limit").value = params.get("limit");
    const found = await people();
    const first = params.get("key") || (found[0] && found[0].key);
    if (first) start(first);
    else say("This user has no people yet: search for an entity.");
  }

  function showSignIn(reason) {
    $("signin").hidden = false;
    $("session").hidden = true;
    say(reason ? `Sign in: ${reason}.` : "Sign in with an API key.");
  }

  async function signIn() {
    let users;
    try {
      users = (await gql(Q.users)).users;
    } catch (error) {
      failed(error);
      return;
    }
    $("signin").hidden = true;
    $("session").hidden = false;
    $("signout").hidden = !state.key;
    const select = $("user");
    fill(select, ...users.map((u) => el("option", { value: u, textContent: u })));
    if (!users.length) {
      say("This key sees no user with memories yet.");
      return;
    }
    const wanted = new URLSearchParams(location.search).get("user");
    select.value = users.includes(wanted) ? wanted : users[0];
    await chooseUser(select.value);
  }

  $("signin").addEventListener("submit", (event) => {
    event.preventDefault();
    state.key = $("api-key").value.trim();
    sessionStorage.setItem(KEY_STORE, state.key);
    signIn();
  });
  $("signout").addEventListener("click", () => {
    sessionStorage.removeItem(KEY_STORE);
    state.key = "";
    state.user = null;
    forgetShown();
    cy.elements().remove();
    showSignIn("");
  });
  $("user").addEventListener("change", (event) => chooseUser(event.target.value));

  // -- filters --------------------------------------------------------------------------------

  function checkbox(value, text, colour) {
    const input = el("input", { type: "checkbox", value, checked: true });
    input.addEventListener("change", draw);
    return el("label", {}, input,
      colour ? el("span", { className: "swatch", style: `background:${colour}` }) : null, text);
  }

  fill($("entity-types"), ...config.entityTypes.map((t) => checkbox(t, t, colourOf(t))));
  fill($("relation-types"), ...config.relationTypes.map((t) => checkbox(t, t, null)));
  for (const [id, on] of [["types-all", true], ["types-none", false]]) {
    $(id).addEventListener("click", () => {
      $("relation-types").querySelectorAll("input").forEach((i) => { i.checked = on; });
      draw();
    });
  }
  $("overview").addEventListener("click", showOverview);
  $("limit").value = String(config.defaultLimit);
  $("limit").max = String(config.maxNodes);
  for (const id of ["depth", "limit", "current", "since", "until"]) {
    $(id).addEventListener("change", draw);
  }

  window.recollectExplorer = {
    cy,
    state,
    drawnKeys: () => cy.nodes().map((n) => n.id()).sort(),
    drawnEdges: () => cy.edges().map((e) => e.id()).sort(),
    graphml,
    browserCypher,
  };

  signIn();
})();
