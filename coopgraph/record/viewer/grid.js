// coopgraph grid drawing (Overcooked): terrain cells, labelled places, pots, counters, gates and cooks, as SVG.
// Shared by the trace viewer (inlined) and the play page (served): build once per layout, draw each frame.
(function () {
  "use strict";
  const SVG = "http://www.w3.org/2000/svg"; // the SVG namespace name; nothing is fetched from it
  const CELL_CLASS = { X: "counter", O: "onion-box", D: "dish-box", S: "serve", P: "pot", W: "wall", G: "gate", T: "tomato-box" };
  const HELD_MARK = { "onion": "o", "plate": "d", "soup in plate": "s", "tomato": "t" };
  const STEP = { north: [0, -1], south: [0, 1], east: [1, 0], west: [-1, 0] };
  function svg(tag, attrs) {
    const node = document.createElementNS(SVG, tag);
    for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
    return node;
  }
  // The layout's grid in `box`; returns the view `draw` updates.
  function build(box, L, agents, color) {
    const view = { cells: {}, marks: {}, cooks: {} };
    const rows = L.terrain || [];
    const width = Math.max(1, ...rows.map((r) => r.length));
    const root = svg("svg", { viewBox: `0 0 ${width} ${rows.length}`, id: "map-svg", class: "grid" });
    const labelAt = {};
    for (const [label, cell] of Object.entries(L.labels || {})) labelAt[cell.join(",")] = label;
    rows.forEach((row, y) => [...row].forEach((ch, x) => {
      const key = `${x},${y}`;
      const rect = svg("rect", { class: "cell " + (CELL_CLASS[ch] || "floor"), x: x + 0.03, y: y + 0.03, width: 0.94, height: 0.94, rx: 0.08, "data-cell": key });
      const title = svg("title");
      title.textContent = labelAt[key] ? `${labelAt[key]} (${CELL_CLASS[ch] || "floor"})` : (CELL_CLASS[ch] || "floor");
      rect.append(title);
      root.append(rect);
      view.cells[key] = rect;
      if (labelAt[key]) {
        const label = svg("text", { class: "cell-label", x: x + 0.08, y: y + 0.3 });
        label.textContent = labelAt[key];
        root.append(label);
      }
      const mark = svg("text", { class: "cell-mark", x: x + 0.5, y: y + 0.72 });
      root.append(mark);
      view.marks[key] = mark;
    }));
    for (const agent of agents) {
      const group = svg("g", { class: "agent-marker", "data-agent": agent });
      group.append(svg("circle", { class: "agent", r: 0.34, fill: color(agent), "data-agent": agent }));
      const label = svg("text", { class: "agent-label" });
      group.append(label);
      const nose = svg("line", { class: "facing", stroke: color(agent) });
      group.append(nose);
      view.cooks[agent] = { group, label, nose };
      root.append(group);
    }
    box.append(root);
    return view;
  }
  // One frame: `frame.kitchen` (pots, counters, gates), `frame.agents[a]` (holding, facing); `positions[a]` [x, y].
  function draw(view, frame, positions) {
    for (const mark of Object.values(view.marks)) mark.textContent = "";
    for (const rect of Object.values(view.cells)) rect.classList.remove("open", "cooking", "ready");
    const kitchen = frame.kitchen || { pots: [], counters: [], gates: [] };
    for (const [x, y, onions, cooking, ready, left] of kitchen.pots || []) {
      const key = `${x},${y}`;
      if (view.marks[key]) view.marks[key].textContent = ready ? "soup!" : cooking ? `${onions}·${left}` : `${onions}/3`;
      if (view.cells[key]) view.cells[key].classList.toggle(ready ? "ready" : "cooking", !!(ready || cooking));
    }
    for (const [x, y, item] of kitchen.counters || []) {
      const key = `${x},${y}`;
      if (view.marks[key]) view.marks[key].textContent = HELD_MARK[item] || "?";
    }
    for (const [x, y, open, timer] of kitchen.gates || []) {
      const key = `${x},${y}`;
      if (view.cells[key]) view.cells[key].classList.toggle("open", !!open);
      if (view.marks[key]) view.marks[key].textContent = open ? `open ${timer}` : "shut";
    }
    for (const [agent, cook] of Object.entries(view.cooks)) {
      const pos = positions[agent];
      if (!pos) continue;
      const a = (frame.agents || {})[agent] || {};
      const [cx, cy] = [pos[0] + 0.5, pos[1] + 0.5];
      const circle = cook.group.querySelector("circle");
      circle.setAttribute("cx", cx); circle.setAttribute("cy", cy);
      cook.label.setAttribute("x", cx); cook.label.setAttribute("y", cy);
      cook.label.textContent = agent.slice(0, 1).toUpperCase() + (a.holding ? HELD_MARK[a.holding] || "?" : "");
      const d = STEP[a.facing] || [0, 0];
      cook.nose.setAttribute("x1", cx + d[0] * 0.34); cook.nose.setAttribute("y1", cy + d[1] * 0.34);
      cook.nose.setAttribute("x2", cx + d[0] * 0.5); cook.nose.setAttribute("y2", cy + d[1] * 0.5);
    }
  }
  window.CoopgraphGrid = { build, draw };
})();
