// coopgraph trace page: everything is drawn from the JSON embedded above; nothing is fetched.
(function () {
  "use strict";
  const D = JSON.parse(document.getElementById("trace-data").textContent);
  const COLORS = ["#1c7ed6", "#e64980", "#2f9e44", "#f08c00"];
  const agents = D.meta.agents || [];
  const color = (agent) => COLORS[Math.max(0, agents.indexOf(agent)) % COLORS.length];
  const lastFrame = Math.max(0, D.frames.length - 1);
  let current = 0;
  let selected = null;

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
  const SVG = "http://www.w3.org/2000/svg"; // the SVG namespace name; nothing is fetched from it
  function svg(tag, attrs) {
    const node = document.createElementNS(SVG, tag);
    for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
    return node;
  }
  const fmt = (v, d = 1) => (v == null ? "–" : typeof v === "number" ? (Number.isInteger(v) ? String(v) : v.toFixed(d))
    : typeof v === "object" && !Array.isArray(v) ? Object.entries(v).map(([k, x]) => `${k} ${fmt(x, d)}`).join(" · ") : String(v));
  // Overcooked: who served each soup (step and cook) and a count per cook; null for worlds without soups.
  const served = D.served || null;
  const soupsAt = (step) => (served ? served.soups.filter((s) => s.step === step) : []);

  // ---- header and metrics -------------------------------------------------------------------------------
  function header() {
    const m = D.meta;
    document.getElementById("title").textContent = `${m.env || "run"} · ${m.episode || ""} · ${(m.team || []).join(" + ")}`;
    const llm = m.llm && m.llm.model ? ` · LLM ${m.llm.model}` : "";
    document.getElementById("subtitle").textContent =
      `seed ${fmt(m.seed)} · agents ${agents.join(", ")}${llm} · ${D.name || ""}${m.complete ? "" : " · (trace incomplete)"}`;
    if (m.goal) document.getElementById("subtitle").append(el("div", { text: "Goal: " + m.goal }));
  }

  function kvTable(rows, head) {
    const table = el("table", { class: "kv" });
    if (head) table.append(el("tr", {}, ...head.map((h) => el("th", { text: h }))));
    for (const row of rows) table.append(el("tr", {}, ...row.map((c) => el("td", { text: fmt(c, 2) }))));
    return table;
  }

  function metrics() {
    const box = document.getElementById("metrics");
    const M = D.metrics;
    const ok = M.success === true;
    box.append(el("p", {}, el("span", { class: "badge " + (ok ? "good" : "bad"), text: ok ? "success" : "not finished" }),
      ` in ${fmt(M.steps)} steps · invalid answers ${fmt(M.invalid_answers)}`));
    const grid = el("div", { class: "metrics-grid" });
    grid.append(kvTable(Object.entries(M.metrics || {}), ["team metric", "value"]));
    const per = Object.entries(M.per_agent || {});
    if (per.length) {
      const keys = Object.keys(per[0][1]);
      grid.append(kvTable(per.map(([a, v]) => [a, ...keys.map((k) => v[k])]), ["agent", ...keys]));
    }
    if (served && served.source) grid.append(servedTable());
    const usage = Object.entries(M.llm_usage || {});
    if (usage.length) {
      const keys = Object.keys(usage[0][1]);
      grid.append(kvTable(usage.map(([a, v]) => [a, ...keys.map((k) => v[k])]), ["agent", ...keys]));
    }
    box.append(grid);
  }

  // Who served: per cook, the soups it delivered itself and at which steps (each step jumps the replay there).
  function servedTable() {
    const table = el("table", { class: "kv served" });
    table.append(el("tr", {}, el("th", { text: "cook" }), el("th", { text: "soups served" }), el("th", { text: "at steps" })));
    for (const [agent, count] of Object.entries(served.by_agent)) {
      const at = el("td", { class: "served-steps" });
      const steps = served.soups.filter((s) => s.agent === agent).map((s) => s.step);
      steps.forEach((step, k) => {
        if (k) at.append(", ");
        at.append(el("a", { href: "#", text: String(step), onclick: (e) => { e.preventDefault(); setStep(step); } }));
      });
      if (!steps.length) at.append(served.source === "steps" ? "–" : "(not recorded in this trace)");
      table.append(el("tr", { "data-agent": agent }, el("td", { text: agent, style: `color:${color(agent)}` }),
        el("td", { class: "served-count", text: String(count) }), at));
    }
    return table;
  }

  // ---- how they cooperated: the process measures and their marks on the timeline ------------------------
  const PROCESS_TITLES = { idle: "idle", idle_share: "idle share", model_wait_s: "model wait (s)",
    partner_wait: "partner wait", duplicated: "duplicated effort", conflicts: "conflicts",
    plan_changes: "messages that changed a plan", work_share: "work share" };
  function processCell(key, value) {
    if (value && typeof value === "object" && "na" in value) return el("td", { class: "na", title: value.na, text: "n/a" });
    if (value == null) return el("td", { text: "–" });
    const pct = key === "idle_share" || key === "work_share";
    return el("td", { text: pct ? `${Math.round(value * 100)}%` : fmt(value, 2) });
  }
  function processTable() {
    const P = D.process;
    const box = document.getElementById("process");
    if (!P) { box.append(el("p", { class: "hint", text: "No process measures in this page." })); return; }
    const keys = Object.keys(PROCESS_TITLES);
    const table = el("table", { class: "kv process" });
    table.append(el("tr", {}, el("th", { text: "agent" }), ...keys.map((k) => el("th", { title: (P.measures || {})[k] || "", text: PROCESS_TITLES[k] }))));
    for (const [agent, values] of Object.entries(P.agents || {})) {
      table.append(el("tr", { "data-agent": agent }, el("td", { text: agent, style: `color:${color(agent)}` }), ...keys.map((k) => processCell(k, values[k]))));
    }
    table.append(el("tr", { "data-agent": "team" }, el("td", { text: "team" }), ...keys.map((k) => processCell(k, (P.team || {})[k]))));
    box.append(table, el("p", { class: "hint", text: `Time in ${P.unit} (${P.time} in all); team idle and model wait are per agent, ` +
      `team work share is the largest agent's${P.work_source ? "; progress from " + P.work_source : ""}.` }));
  }
  // The x of a world step on an agent's timeline: its cell (steps are frames in TDW-MAT, so not every step has one).
  function cellLeft(agent, step) {
    const steps = (D.timeline[agent] || []).map((t) => t.step);
    let index = steps.findIndex((s) => s >= step);
    if (index < 0) index = steps.length - 1;
    return (index + 1) * cellWidth;
  }
  function processLane(agent) {
    const lane = el("div", { class: "tl-process" });
    const marks = ((D.process || {}).marks || {})[agent];
    if (!marks) return lane;
    for (const [kind, cls, what] of [["idle", "tl-idle", "idle"], ["duplicated", "tl-dup", "heading for the same object as a partner"]]) {
      for (const [start, end] of marks[kind] || []) {
        const left = cellLeft(agent, start);
        lane.append(el("span", { class: cls, title: `${what}: steps ${start}–${end}`, "data-start": start, "data-end": end,
          style: `left:${left}px;width:${Math.max(cellWidth, cellLeft(agent, end) - left + cellWidth) - 1}px` }));
      }
    }
    for (const c of marks.conflicts || []) {
      lane.append(el("span", { class: "tl-conflict", title: `step ${c.step}: ${c.what}`, text: "✖", "data-step": c.step,
        style: `left:${cellLeft(agent, c.step)}px`, onclick: () => setStep(c.step) }));
    }
    for (const c of marks.plan_changes || []) {
      lane.append(el("span", { class: "tl-planchange", title: `step ${c.step}: a message from ${c.from} changed the plan to ${c.plan}`,
        text: "↻", "data-step": c.step, style: `left:${cellLeft(agent, c.step)}px`, onclick: () => setStep(c.step) }));
    }
    return lane;
  }

  // ---- map replay ---------------------------------------------------------------------------------------
  // Rooms, doors, the bed, objects and agent markers are drawn by house.js, shared with the play page.
  const House = window.CoopgraphHouse;
  const mapState = { agents: {}, trails: {}, items: {}, containers: {}, flip: (y) => y };
  function buildMap() {
    const box = document.getElementById("map");
    const L = D.layout;
    if (L && L.kind === "grid") { buildGrid(box, L); return; }
    if (L && L.kind === "floorplan") { buildFloor(box, L); return; }
    if (!L || !L.rooms || !L.rooms.length) {
      box.append(el("p", { class: "hint", text: "This trace has no layout (the environment did not provide one); positions are listed instead." }));
      return;
    }
    const { root, flip } = House.drawRooms(L, {});
    mapState.flip = flip;
    for (const o of L.objects || []) {
      if (o.kind === "item" || !o.position) continue;
      mapState.containers[o.id] = House.drawObject(root, flip, o);
    }
    for (const [id, item] of Object.entries(D.items.items || {})) {
      const dot = svg("circle", { class: "item" + (item.dummy ? " dummy" : ""), r: 0.14, "data-item": id });
      const title = svg("title");
      title.textContent = `<${item.name}> (${id})`;
      dot.append(title);
      mapState.items[id] = dot;
      root.append(dot);
    }
    for (const agent of agents) {
      const trail = svg("polyline", { class: "trail", stroke: color(agent) });
      const marker = House.agentMarker(agent, color(agent));
      mapState.trails[agent] = trail;
      mapState.agents[agent] = marker;
      root.append(trail, marker.group);
    }
    box.append(root);
  }

  function agentPos(step, agent) {
    for (let s = Math.min(step, lastFrame); s >= 0; s--) {
      const a = D.frames[s].agents[agent];
      if (a && a.pos) return a.pos;
    }
    return null;
  }

  function drawFrame(step) {
    const frame = D.frames[step] || D.frames[0];
    if (D.layout && D.layout.kind === "grid") { drawGrid(step); stepInfo(step); return; }
    if (D.layout && D.layout.kind === "floorplan") { drawFloor(step); stepInfo(step); return; }
    const flip = mapState.flip;
    const positions = {};
    for (const agent of agents) {
      const pos = agentPos(step, agent);
      positions[agent] = pos;
      const marker = mapState.agents[agent];
      if (!marker || !pos) continue;
      House.placeAgent(marker, pos[0], flip(pos[1]), null);
      const points = [];
      for (let s = 0; s <= step; s++) {
        const p = agentPos(s, agent);
        if (p) points.push(`${p[0].toFixed(2)},${flip(p[1]).toFixed(2)}`);
      }
      mapState.trails[agent].setAttribute("points", points.join(" "));
    }
    const openNow = Object.assign({}, D.items.open || {}, frame.open || {});
    for (const [id, shape] of Object.entries(mapState.containers)) {
      if (id in openNow) shape.classList.toggle("open", !!openNow[id]);
    }
    const inside = {};
    for (const o of (D.layout && D.layout.objects) || []) if (o.kind === "container") inside[o.id] = true;
    for (const [id, dot] of Object.entries(mapState.items)) {
      const moved = (frame.items || {})[id];
      const item = D.items.items[id];
      let pos = item.pos;
      let hidden = item.inside && !openNow[item.holder];
      if (typeof moved === "string") { pos = positions[moved] || pos; hidden = false; }
      else if (Array.isArray(moved)) { pos = moved; hidden = false; }
      dot.setAttribute("cx", pos[0].toFixed(3));
      dot.setAttribute("cy", flip(pos[1]).toFixed(3));
      dot.classList.toggle("hidden", !!hidden);
    }
    stepInfo(step);
  }

  function stepInfo(step) {
    const box = document.getElementById("step-info");
    box.textContent = "";
    const frame = D.frames[step] || {};
    const soFar = served && served.source === "steps"
      ? ` · served so far ${Object.keys(served.by_agent).map((a) => `${a} ${served.soups.filter((s) => s.agent === a && s.step <= step).length}`).join(", ")}`
      : "";
    box.append(el("div", {}, el("b", { text: `Step ${step}` }),
      frame.score != null ? ` · score ${frame.score}` : "",
      frame.subgoals_done != null ? ` · subgoals done ${frame.subgoals_done}` : "", soFar));
    const names = (ids) => ids.map((i) => { const t = D.items.items[i]; return t ? `<${t.name}> (${i})` : String(i); });
    for (const agent of agents) {
      const entry = (D.timeline[agent] || []).find((t) => t.step === step);
      const a = (frame.agents || {})[agent] || {};
      const line = el("div", {}, el("span", { class: "who", text: agent + " ", style: `color:${color(agent)}` }));
      if (a.room) line.append(`in ${a.room} `);
      if (typeof a.holding === "string") line.append(`holding ${a.holding} `);
      else if (a.holding && a.holding.length) line.append(`holding ${names(a.holding).map((n, k) => {
        const inner = (a.inside || {})[a.holding[k]];
        return inner && inner.length ? `${n} with ${names(inner).join(", ")}` : n;
      }).join(" and ")} `);
      if (entry) {
        line.append(el("div", { class: "act" + (entry.ok ? "" : " fail"), text: entry.action + (entry.ok ? "" : ` — ${entry.reason}`) }));
      }
      if (soupsAt(step).some((s) => s.agent === agent)) line.append(el("div", { class: "served-now", text: "served a soup" }));
      const plan = (D.plans[agent] || []).find((p) => p.start <= step && step <= p.end);
      if (plan) line.append(el("div", { class: "hint", text: "plan: " + plan.plan }));
      box.append(line);
    }
  }

  // ---- grid replay (Overcooked): drawn by grid.js, shared with the play page ----------------------------------
  let gridView = null;
  function buildGrid(box, L) {
    gridView = window.CoopgraphGrid.build(box, L, agents, color);
  }
  function drawGrid(step) {
    const frame = D.frames[step] || D.frames[0];
    const positions = Object.fromEntries(agents.map((agent) => [agent, agentPos(step, agent)]));
    window.CoopgraphGrid.draw(gridView, frame, positions);
  }

  // ---- floorplan replay (TDW-MAT): rooms, doors, the bed's goal circle, targets, containers, agents with heading --
  const floorState = { things: {}, agents: {}, flip: (y) => y };
  function buildFloor(box, L) {
    const { root, flip } = House.drawRooms(L, { class: "floorplan" });
    floorState.flip = flip;
    House.drawBed(root, flip, L.bed.position, L.goal_radius);
    for (const t of L.things || []) {
      const shape = t.kind === "container"
        ? svg("rect", { class: "container", width: 0.4, height: 0.4, rx: 0.06, "data-thing": t.id })
        : svg("circle", { class: "item", r: 0.14, "data-thing": t.id });
      const title = svg("title");
      title.textContent = `<${t.name}> (${t.id})`;
      shape.append(title);
      floorState.things[t.id] = shape;
      root.append(shape);
    }
    for (const agent of agents) {
      const trail = svg("polyline", { class: "trail", stroke: color(agent) });
      const marker = House.agentMarker(agent, color(agent));
      floorState.agents[agent] = { ...marker, trail };
      root.append(trail, marker.group);
    }
    box.append(root);
  }
  function drawFloor(step) {
    const frame = D.frames[step] || D.frames[0];
    const flip = floorState.flip;
    for (const [id, shape] of Object.entries(floorState.things)) {
      const moved = (frame.things || {})[id];
      const pos = moved || D.items.items[id].pos;
      const [x, y] = [pos[0], flip(pos[1])];
      if (shape.tagName === "rect") { shape.setAttribute("x", (x - 0.2).toFixed(3)); shape.setAttribute("y", (y - 0.2).toFixed(3)); }
      else { shape.setAttribute("cx", x.toFixed(3)); shape.setAttribute("cy", y.toFixed(3)); }
    }
    for (const agent of agents) {
      const marker = floorState.agents[agent];
      const pos = agentPos(step, agent);
      if (!marker || !pos) continue;
      const a = (frame.agents || {})[agent] || {};
      House.placeAgent(marker, pos[0], flip(pos[1]), a.heading || 0); // 0 faces +z (up on the map)
      const points = [];
      for (let s = 0; s <= step; s++) {
        const p = agentPos(s, agent);
        if (p) points.push(`${p[0].toFixed(2)},${flip(p[1]).toFixed(2)}`);
      }
      marker.trail.setAttribute("points", points.join(" "));
    }
  }

  // ---- timeline -----------------------------------------------------------------------------------------
  const KINDS = ["walk", "grab", "put", "open", "close", "send_message", "wait"];
  const cellWidth = 9;
  function timeline() {
    const legend = document.getElementById("legend");
    for (const k of KINDS) legend.append(el("span", {}, el("i", { style: `background:var(--${k})` }), k));
    legend.append(el("span", {}, el("i", { style: "background:var(--fail)" }), "failed action"), el("span", { text: "◆ decision  ✉ message" + (served ? "  ● soup served" : "") }));
    legend.append(el("span", {}, el("i", { style: "background:#adb5bd" }), "idle"),
      el("span", {}, el("i", { style: "background:#f783ac" }), "duplicated effort"), el("span", { text: "✖ conflict  ↻ plan changed by a message" }));
    const box = document.getElementById("timeline");
    for (const agent of agents) {
      const lanes = el("div", { class: "tl-lanes", style: `width:${(lastFrame + 1) * cellWidth}px` });
      const plans = el("div", { class: "tl-plans" });
      for (const p of D.plans[agent] || []) {
        plans.append(el("div", { class: "tl-plan" + (p.invalid ? " invalid" : ""), title: `${p.plan} (${p.status})`, text: p.plan,
          style: `left:${p.start * cellWidth}px;width:${Math.max(1, p.end - p.start + 1) * cellWidth - 2}px`,
          onclick: () => setStep(Math.min(lastFrame, p.start + 1)) }));
      }
      const cells = el("div", { class: "tl-cells" }, el("span", { class: "tl-cell k-none", "data-step": 0, title: "start" }));
      for (const t of D.timeline[agent] || []) {
        cells.append(el("span", { class: `tl-cell k-${t.kind}${t.ok ? "" : " failed"}`, "data-step": t.step,
          title: `step ${t.step}: ${t.action}${t.ok ? "" : " — " + t.reason}`, onclick: () => setStep(t.step) }));
      }
      const marks = el("div", { class: "tl-marks" });
      for (const d of D.decisions.filter((x) => x.agent === agent)) {
        marks.append(el("span", { class: "tl-mark dmark", "data-decision": d.id, title: `decision at step ${d.step}`, text: "◆",
          style: `left:${d.step * cellWidth}px`, onclick: () => openDecision(d.id) }));
      }
      for (const soup of served ? served.soups.filter((x) => x.agent === agent) : []) {
        marks.append(el("span", { class: "tl-mark soup", "data-step": soup.step, title: `${agent} served a soup at step ${soup.step}`,
          text: "●", style: `left:${soup.step * cellWidth}px`, onclick: () => setStep(soup.step) }));
      }
      for (const m of D.messages.filter((x) => x.agent === agent)) {
        marks.append(el("span", { class: "tl-mark msg", title: m.text, text: "✉", style: `left:${m.step * cellWidth}px`,
          onclick: () => setStep(m.step) }));
      }
      lanes.append(plans, cells, processLane(agent), marks, el("div", { class: "tl-cursor", "data-agent": agent }));
      box.append(el("div", { class: "tl-row", "data-agent": agent }, el("div", { class: "tl-name", text: agent, style: `color:${color(agent)}` }), lanes));
    }
  }

  function markTimeline(step) {
    document.querySelectorAll(".tl-cell.current").forEach((c) => c.classList.remove("current"));
    document.querySelectorAll(`.tl-cell[data-step="${step}"]`).forEach((c) => c.classList.add("current"));
    document.querySelectorAll(".tl-cursor").forEach((c) => { c.style.left = `${step * cellWidth + cellWidth / 2}px`; });
  }

  // ---- decisions ----------------------------------------------------------------------------------------
  function decisions() {
    const list = document.getElementById("decisions");
    if (!D.decisions.length) list.append(el("li", { class: "hint", text: "No decisions in this trace." }));
    for (const d of D.decisions) {
      const plan = d.plans.length ? d.plans[d.plans.length - 1].plan : d.llm_calls.length ? "(LLM call, no plan)" : "(invalid answer)";
      const invalid = d.invalid_answers.length || d.plans.some((p) => p.invalid);
      list.append(el("li", { class: "decision", "data-decision": d.id, onclick: () => openDecision(d.id) },
        el("div", { class: "meta", text: `step ${d.step} · ${d.agent} · ${d.llm_calls.length} LLM call(s) · ${d.prompt_tokens} prompt tokens` }),
        el("div", { class: "plan", text: plan }),
        invalid ? el("span", { class: "badge bad", text: "invalid answer" }) : null));
    }
  }

  function openDecision(id) {
    const d = D.decisions[id];
    if (!d) return;
    selected = id;
    document.querySelectorAll(".decision").forEach((n) => n.classList.toggle("selected", Number(n.dataset.decision) === id));
    const box = document.getElementById("decision-detail");
    box.className = "";
    box.textContent = "";
    box.append(el("h3", { text: `${d.agent} at step ${d.step}` }));
    box.append(kvTable([["LLM calls", d.llm_calls.length], ["prompt tokens", d.prompt_tokens],
      ["completion tokens", d.completion_tokens], ["latency (s)", d.latency_s], ["graph path", d.path.join(" → ") || "–"]]));
    for (const p of d.plans) {
      box.append(el("p", {}, el("b", { text: "Plan: " }), p.plan, p.invalid ? el("span", { class: "badge bad", text: " invalid answer, fallback" }) : ""));
      if (p.reasoning) box.append(el("p", {}, el("b", { text: "Reasoning: " }), p.reasoning));
    }
    for (const r of d.routes) box.append(el("div", { class: "hint", text: `route after ${r.node}: ${r.branch}` }));
    if (d.replay) box.append(el("p", {}, el("b", { text: "Replay: " }), el("code", { class: "replay", text: d.replay })));
    d.llm_calls.forEach((c, i) => {
      const call = el("div", { class: "llm-call prompt" });
      call.append(el("h4", { text: `LLM call ${i + 1}: ${c.node || "?"} · ${c.model || "?"} · ${fmt(c.prompt_tokens)} → ${fmt(c.completion_tokens)} tokens · ${fmt(c.latency_s, 3)} s${c.cache_hit ? " · cache hit" : ""}` }));
      for (const m of c.prompt || []) call.append(el("div", { class: "role", text: m.role }), el("pre", { text: m.content }));
      call.append(el("div", { class: "role", text: "answer" }), el("pre", { class: "answer", text: c.response || "" }));
      box.append(call);
    });
    for (const bad of d.invalid_answers) {
      box.append(el("div", { class: "llm-call" }, el("h4", { text: `invalid answer (${bad.node || "?"})` }),
        el("pre", { text: `${bad.raw || ""}\n\n${JSON.stringify(bad.errors || [], null, 1)}` })));
    }
    for (const e of d.errors) box.append(el("pre", { text: `LLM error in ${e.node}: ${e.error}` }));
    highlightGraph(d);
    setStep(Math.min(lastFrame, d.step + 1), false);
  }

  // ---- dialogue -----------------------------------------------------------------------------------------
  function dialogue() {
    const list = document.getElementById("dialogue");
    if (!D.messages.length) list.append(el("li", { class: "hint", text: "No messages were sent." }));
    for (const m of D.messages) {
      list.append(el("li", { onclick: () => setStep(m.step) }, el("span", { class: "when", text: `step ${m.step}` }),
        el("span", { class: "who", text: m.agent, style: `color:${color(m.agent)}` }), m.text,
        m.truncated ? el("span", { class: "badge bad", text: " truncated" }) : null));
    }
  }

  // ---- graphs -------------------------------------------------------------------------------------------
  function graphs() {
    const box = document.getElementById("graphs");
    const entries = Object.entries(D.graphs || {});
    if (!entries.length) box.append(el("p", { class: "hint", text: "No graph agents in this run (baseline members have no graph)." }));
    for (const [agent, g] of entries) {
      const holder = el("div", { class: "graph-box", "data-agent": agent }, el("h3", { text: `${agent}: ${g.spec || "?"}` }));
      if (g.svg) {
        const frame = el("div");
        frame.innerHTML = g.svg; // generated and escaped by coopgraph from the spec file, not from trace text
        holder.append(frame);
        for (const node of frame.querySelectorAll("[data-node]")) {
          const n = g.visits[node.dataset.node];
          if (n) { node.classList.add("visited"); node.querySelector(".visits").textContent = "×" + n; }
        }
        for (const edge of frame.querySelectorAll(".edge")) {
          if (g.edges[`${edge.dataset.from}>${edge.dataset.to}`]) edge.classList.add("taken");
        }
      } else {
        holder.append(el("p", { class: "hint", text: g.error || "no drawing" }));
      }
      if (g.mermaid) holder.append(el("details", {}, el("summary", { text: "Mermaid source" }), el("pre", { text: g.mermaid })));
      box.append(holder);
    }
  }

  function highlightGraph(d) {
    document.querySelectorAll("svg.graph .current").forEach((n) => n.classList.remove("current"));
    const holder = document.querySelector(`.graph-box[data-agent="${CSS.escape(d.agent)}"]`);
    if (!holder) return;
    const hops = ["__start__", ...d.path, "END"];
    for (const node of d.path) holder.querySelectorAll(`[data-node="${CSS.escape(node)}"]`).forEach((n) => n.classList.add("current"));
    for (let i = 0; i + 1 < hops.length; i++) {
      holder.querySelectorAll(`.edge[data-from="${CSS.escape(hops[i])}"][data-to="${CSS.escape(hops[i + 1])}"]`)
        .forEach((n) => n.classList.add("current"));
    }
  }

  // ---- scrubbing ----------------------------------------------------------------------------------------
  const scrubber = document.getElementById("scrubber");
  function setStep(step, fromSlider) {
    current = Math.max(0, Math.min(lastFrame, step));
    if (!fromSlider) scrubber.value = String(current);
    document.getElementById("step-label").textContent = `step ${current} / ${lastFrame}`;
    drawFrame(current);
    markTimeline(current);
  }
  let timer = null;
  function togglePlay() {
    const button = document.getElementById("play");
    if (timer) { clearInterval(timer); timer = null; button.textContent = "▶"; return; }
    if (current >= lastFrame) setStep(0);
    button.textContent = "❚❚";
    timer = setInterval(() => { if (current >= lastFrame) togglePlay(); else setStep(current + 1); }, 120);
  }

  header();
  metrics();
  processTable();
  buildMap();
  timeline();
  decisions();
  dialogue();
  graphs();
  scrubber.max = String(lastFrame);
  scrubber.addEventListener("input", () => setStep(Number(scrubber.value), true));
  document.getElementById("play").addEventListener("click", togglePlay);
  document.addEventListener("keydown", (e) => {
    if (e.target && e.target.tagName === "INPUT") return; // the slider moves itself with the arrow keys
    if (e.key === "ArrowRight") setStep(current + 1);
    else if (e.key === "ArrowLeft") setStep(current - 1);
    else if (e.key === " ") { e.preventDefault(); togglePlay(); }
  });
  setStep(0);
  document.body.dataset.ready = "true";
})();
