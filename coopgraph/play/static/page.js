// coopgraph play page: one page for every world. It draws whatever the current turn holds (the agent's view,
// numbered options, key moves, the grid or the house as the agent knows it) and follows the server's events.
// Text is only ever set as text.
(function () {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const token = new URLSearchParams(location.search).get("token") || "";
  const headers = { "Content-Type": "application/json", "X-Play-Token": token };
  const COLORS = ["#1c7ed6", "#e64980", "#2f9e44", "#f08c00"];
  let info = {};
  let turn = null;
  let grid = null;
  let ended = false;
  const heard = new Map();  // sender|text -> li, so a message seen live is not listed twice

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value);
    }
    for (const child of children) if (child != null) node.append(child);
    return node;
  }
  function status(text, yours) {
    $("status").textContent = text;
    $("status").className = yours ? "yours" : "";
  }
  function say(text) { $("error").textContent = text || ""; }
  function color(agent) { return COLORS[Math.max(0, (info.agents || []).indexOf(agent)) % COLORS.length]; }
  function enable(on) {
    for (const b of document.querySelectorAll("#options button, #moves button, #send")) b.disabled = !on;
  }

  function addMessage(sender, text, step) {
    const key = sender + "|" + text;
    if (heard.has(key)) return;
    const li = el("li", { "data-sender": sender }, el("span", { class: "sender", text: `${sender} (step ${step}):` }),
      el("span", { class: "text", text: text }));
    heard.set(key, li);
    $("dialogue").append(li);
  }

  function drawGrid(frame) {
    if (!frame || !info.layout || info.layout.kind !== "grid" || !window.CoopgraphGrid) return;
    if (!grid) grid = window.CoopgraphGrid.build($("map"), info.layout, info.agents || [], color);
    window.CoopgraphGrid.draw(grid, frame, frame.positions || {});
  }

  // A house world's map (house.js, shared with the trace viewer): the rooms and doors once, then each turn only
  // what the agent knows: its place, the rooms it has seen, the objects its belief places, partners in sight.
  let house = null;
  function drawHouse(known) {
    const House = window.CoopgraphHouse;
    const L = info.layout;
    if (!known || !L || (L.kind !== "house" && L.kind !== "floorplan") || !House) return;
    if (!house) {
      const { root, flip } = House.drawRooms(L, { class: "house " + L.kind });
      const layer = House.svg("g", { class: "known" });
      root.append(layer);
      $("map").append(root);
      house = { root, flip, layer, rooms: root.querySelectorAll("rect.room") };
    }
    const seen = new Set(known.rooms_seen || []);
    for (const rect of house.rooms) {
      const id = Number(rect.getAttribute("data-room"));
      rect.classList.toggle("unseen", !seen.has(id));
      rect.classList.toggle("here", id === known.room_id);
    }
    const flip = house.flip;
    house.layer.replaceChildren();
    for (const o of known.objects || []) {
      if (L.kind === "floorplan" && o.kind === "surface") House.drawBed(house.layer, flip, o.position, L.goal_radius);
      else House.drawObject(house.layer, flip, o, (o.source === "told" ? "told" : "") + (o.is_open ? " open" : ""));
    }
    const drawAgent = (agent, position, heading) => {
      const marker = House.agentMarker(agent, color(agent));
      House.placeAgent(marker, position[0], flip(position[1]), heading);
      house.layer.append(marker.group);
    };
    for (const p of known.partners || []) drawAgent(p.agent_id, p.position, null);
    drawAgent(turn.agent, known.position, known.heading);
    house.root.dataset.room = String(known.room_id);
  }

  function showTurn(t) {
    turn = t;
    document.body.dataset.step = String(t.step);
    $("who").textContent = `You play ${t.agent_name} (${t.agent}) in ${t.env}`;
    $("clock").textContent = `step ${t.step} of ${t.horizon}`;
    const last = $("last");
    last.textContent = t.last_action ? `last action: ${t.last_action}` + (t.last_action_ok ? " (ok)" : ` (failed: ${t.last_action_reason})`) : "";
    last.className = t.last_action_ok ? "" : "fail";
    $("view").replaceChildren(...[t.goal, ...t.view].filter(Boolean).map((line) => el("li", { text: line })));
    $("options").replaceChildren(...t.options.map((text, i) =>
      el("li", {}, el("button", { type: "button", class: "option", "data-choice": String(i + 1), text: text,
        onclick: () => answer({ choice: i + 1 }) }))));
    const moves = Object.entries(t.moves || {});
    $("moves").replaceChildren(...moves.map(([key, move]) =>
      el("button", { type: "button", class: "move", "data-move": move, text: `${move} (${key === " " ? "space" : key})`,
        onclick: () => answer({ move: move }) })));
    $("limit").textContent = `Choose an action or send a message (up to ${t.message_limit} characters; longer is cut).`;
    $("message-text").setAttribute("maxlength", String(t.message_limit));
    for (const m of t.messages || []) addMessage(m.sender, m.text, m.step);
    drawGrid(t.frame);
    drawHouse(t.known_map);
    enable(true);
    status("your turn", true);
  }

  // The per-step limit (--step-limit), counted down on the page; the server decides when it has run out.
  let timer = null;
  function countdown(limit, token) {
    clearInterval(timer);
    $("timer").textContent = "";
    if (!limit) return;
    const end = Date.now() + limit * 1000;
    timer = setInterval(() => {
      if (!turn || turn.token !== token) { clearInterval(timer); $("timer").textContent = ""; return; }
      $("timer").textContent = `${Math.max(0, Math.ceil((end - Date.now()) / 1000))} s left`;
    }, 250);
  }

  async function answer(body) {
    if (!turn || ended) return;
    const sent = turn.token;
    enable(false);
    status("partners are acting…", false);
    const response = await fetch("act", { method: "POST", headers, body: JSON.stringify({ token: sent, ...body }) });
    if (response.ok) { say(""); turn = null; return; }
    const problem = await response.json().catch(() => ({ error: response.statusText }));
    say(problem.error);
    if (response.status === 400 && turn && turn.token === sent) { enable(true); status("your turn", true); }
  }

  function onEvent(entry) {
    if (entry.type === "turn") { showTurn(entry.turn); countdown(entry.limit_s, entry.turn.token); }
    else if (entry.type === "message") addMessage(entry.agent, entry.text, entry.step);
    else if (entry.type === "plan") {
      $("activity").append(el("li", { text: `step ${entry.step}: ${entry.agent} ` + (entry.plan ? `chose ${entry.plan}` : "chose a plan") }));
      while ($("activity").children.length > 12) $("activity").firstChild.remove();
    } else if (entry.type === "step") {
      $("clock").textContent = `step ${entry.step}` + (turn ? ` of ${turn.horizon}` : "");
      document.body.dataset.clock = String(entry.step);
    } else if (entry.type === "answered" || entry.type === "timeout") {
      if (turn && turn.token === entry.token) {
        turn = null;
        enable(false);
        status(entry.type === "timeout" ? "time is up: you wait this step" : "partners are acting…", false);
      }
    }
    else if (entry.type === "end") finish(entry);
    else if (entry.type === "rated") { $("ratings").hidden = true; $("thanks").hidden = false; document.body.dataset.rated = "true"; }
  }

  function finish(entry) {
    ended = true;
    enable(false);
    status("the episode has ended", false);
    $("outcome").textContent = (entry.success ? "Solved" : "Not solved") + ` at step ${entry.steps}.`;
    $("end").hidden = false;
    document.body.dataset.ended = "true";
  }

  function questions(asked) {
    $("questions").replaceChildren(...Object.entries(asked).map(([name, text]) =>
      el("fieldset", { class: "question" }, el("legend", { text: text }),
        ...[1, 2, 3, 4, 5, 6, 7].map((v) => el("label", {}, el("input", { type: "radio", name: name, value: String(v), required: "" }), String(v))))));
  }

  $("message-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const text = $("message-text").value.trim();
    if (!text) return;
    $("message-text").value = "";
    answer({ message: text });
  });
  $("ratings").addEventListener("submit", async (event) => {
    event.preventDefault();
    const form = new FormData($("ratings"));
    const body = { helpfulness: Number(form.get("helpfulness")), trust: Number(form.get("trust")), comment: $("comment").value };
    const response = await fetch("rate", { method: "POST", headers, body: JSON.stringify(body) });
    if (response.ok) onEvent({ type: "rated" });
    else say((await response.json().catch(() => ({}))).error || response.statusText);
  });
  document.addEventListener("keydown", (event) => {
    if (!turn || event.target.tagName === "TEXTAREA" || event.target.tagName === "INPUT") return;
    const move = (turn.moves || {})[event.key];
    if (move) { event.preventDefault(); answer({ move: move }); return; }
    const n = Number(event.key);
    if (n >= 1 && n <= Math.min(9, turn.options.length)) answer({ choice: n });
  });

  async function start() {
    const response = await fetch("state", { headers });
    if (!response.ok) { say((await response.json().catch(() => ({}))).error || response.statusText); return; }
    info = await response.json();
    questions(info.questions || {});
    enable(false);
    status("waiting for the world…", false);
    const events = new EventSource("events" + (token ? `?token=${encodeURIComponent(token)}` : ""));
    for (const kind of ["turn", "answered", "message", "plan", "step", "timeout", "end", "rated"]) {
      events.addEventListener(kind, (e) => onEvent(JSON.parse(e.data)));
    }
    document.body.dataset.ready = "true";
  }
  start();
})();
