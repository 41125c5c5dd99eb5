// The approval console's page. Every value from the server is written with textContent
// (tool arguments are written by a model, and hostile): no markup is ever built from data.
"use strict";

(() => {
  const POLL_MS = 2000;
  let csrf = null;
  // Cards on the page, by proposal id or journal key: what each showed, and whether this
  // tab decided it (then it stays, with its result).
  const proposals = new Map();
  const doubts = new Map();

  const $ = (id) => document.getElementById(id);
  const text = (root, selector, value) => { root.querySelector(selector).textContent = value; };
  const when = (ms) => (ms == null ? "never" : new Date(ms).toLocaleString());

  function status(message) { $("status").textContent = message; }
  function notice(message) {
    const box = $("notice");
    box.textContent = message || "";
    box.hidden = !message;
  }

  async function call(method, path, body) {
    const headers = { "Accept": "application/json" };
    if (body !== undefined) {
      headers["Content-Type"] = "application/json";
      headers["X-Toolset-Csrf"] = csrf || "";
    }
    const response = await fetch(path, {
      method, headers, credentials: "same-origin",
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    let data = null;
    try { data = await response.json(); } catch (_) { data = null; }
    if (!response.ok) {
      const reason = data && typeof data.error === "string" ? data.error : (response.status + " " + response.statusText);
      throw new Error(reason);
    }
    return data;
  }

  function showResult(card, message, ok) {
    const result = card.querySelector(".result");
    result.textContent = message;
    result.className = "result " + (ok ? "ok" : "refused");
  }

  function settle(card) {
    card.dataset.settled = "true";
    card.querySelectorAll("button, input").forEach((control) => { control.disabled = true; });
  }

  function proposalCard(p) {
    const card = $("proposal-template").content.firstElementChild.cloneNode(true);
    card.dataset.id = p.id;
    card.dataset.digest = p.digest;
    text(card, ".tool", p.tool);
    text(card, ".tier", p.tier);
    text(card, ".run-id", p.run || "(the host's own)");
    text(card, ".call-id", p.call_id);
    text(card, ".expires", when(p.expires_at_ms));
    text(card, ".arguments", p.arguments);
    if (p.preview == null) {
      card.querySelector(".preview-title").hidden = true;
      card.querySelector(".preview").hidden = true;
    } else {
      text(card, ".preview", p.preview);
    }
    const reasons = card.querySelector(".reasons");
    for (const reason of p.reasons) {
      const item = document.createElement("li");
      item.textContent = reason.text;
      reasons.appendChild(item);
    }
    const reasonInput = card.querySelector(".reason");
    reasonInput.id = "reason-" + p.id;
    card.querySelector(".approve").setAttribute("aria-label", "Approve " + p.tool + " " + p.call_id);
    card.querySelector(".decline").setAttribute("aria-label", "Decline " + p.tool + " " + p.call_id);
    // The digest signed is the one this card showed, never a newer one.
    const digest = p.digest;
    card.querySelector(".approve").addEventListener("click", () => decide(card, "approve", { digest }));
    card.querySelector(".decline").addEventListener("click", () =>
      decide(card, "decline", { digest, reason: reasonInput.value }));
    return card;
  }

  async function decide(card, action, body) {
    card.querySelectorAll("button").forEach((button) => { button.disabled = true; });
    try {
      const answer = await call("POST", "/api/proposals/" + encodeURIComponent(card.dataset.id) + "/" + action, body);
      settle(card);
      if (action === "decline") {
        showResult(card, "Declined: the model will be told.", true);
      } else if (answer.ran) {
        const lines = answer.results.map((r) => r.tool + " " + r.kind + ": " + r.text);
        showResult(card, "Approved and ran. " + lines.join(" "), true);
      } else {
        showResult(card, "Approved: " + (answer.message || "handed to the host."), true);
      }
    } catch (error) {
      settle(card);
      showResult(card, "Refused: " + error.message, false);
    }
  }

  function doubtCard(d) {
    const card = $("doubt-template").content.firstElementChild.cloneNode(true);
    card.dataset.key = d.key;
    text(card, ".tool", d.tool);
    text(card, ".tier", d.tier);
    text(card, ".key", d.key);
    text(card, ".call-id", d.call_id);
    text(card, ".started", when(d.started_at_ms));
    text(card, ".attempts", String(d.attempts));
    text(card, ".arguments", d.arguments);
    for (const verdict of ["done", "failed", "rerun"]) {
      card.querySelector("." + verdict).addEventListener("click", () => resolve(card, verdict, d.attempts));
    }
    return card;
  }

  async function resolve(card, verdict, attempts) {
    card.querySelectorAll("button").forEach((button) => { button.disabled = true; });
    try {
      const answer = await call("POST", "/api/in-doubt/" + encodeURIComponent(card.dataset.key) + "/resolve", { verdict, attempts });
      settle(card);
      showResult(card, "Resolved. The model will be told: " + answer.told, true);
    } catch (error) {
      settle(card);
      showResult(card, "Refused: " + error.message, false);
    }
  }

  // Adds what is new, marks what changed, removes what was decided elsewhere.
  function sync(list, cards, items, keyOf, make, onChanged) {
    const seen = new Set();
    for (const item of items) {
      const key = keyOf(item);
      seen.add(key);
      const card = cards.get(key);
      if (!card) {
        const made = make(item);
        cards.set(key, made);
        list.appendChild(made);
      } else if (onChanged) {
        onChanged(card, item);
      }
    }
    for (const [key, card] of cards) {
      if (!seen.has(key) && card.dataset.settled !== "true") {
        card.remove();
        cards.delete(key);
      }
    }
  }

  function filtersQuery() {
    const params = new URLSearchParams();
    const run = $("filter-run").value;
    const tool = $("filter-tool").value.trim();
    if (run) params.set("run", run);
    if (tool) params.set("tool", tool);
    const query = params.toString();
    return query ? "?" + query : "";
  }

  function syncRuns(runs) {
    const select = $("filter-run");
    const known = new Set(Array.from(select.options).map((option) => option.value));
    for (const run of runs) {
      if (!known.has(run)) {
        const option = document.createElement("option");
        option.value = run;
        option.textContent = run;
        select.appendChild(option);
      }
    }
  }

  async function refresh() {
    try {
      const state = await call("GET", "/api/state" + filtersQuery());
      sync($("proposals"), proposals, state.proposals, (p) => p.id, proposalCard, (card, p) => {
        card.querySelector(".changed").hidden = card.dataset.digest === p.digest;
      });
      sync($("in-doubt"), doubts, state.in_doubt, (d) => d.key + "#" + d.attempts, doubtCard, null);
      syncRuns(state.runs);
      $("proposals-count").textContent = "(" + state.proposals.length + ")";
      $("doubt-count").textContent = "(" + state.in_doubt.length + ")";
      $("proposals-empty").hidden = proposals.size > 0;
      $("doubt-empty").hidden = doubts.size > 0;
      status("Up to date · " + new Date().toLocaleTimeString());
      notice("");
    } catch (error) {
      status("Not up to date");
      notice("Could not load what waits: " + error.message);
    }
  }

  function refilter() {
    for (const cards of [proposals, doubts]) {
      for (const [key, card] of cards) { card.remove(); cards.delete(key); }
    }
    refresh();
  }

  async function showRun(event) {
    event.preventDefault();
    const box = $("run");
    box.replaceChildren();
    box.hidden = false;
    const id = $("run-id").value.trim();
    try {
      const run = await call("GET", "/api/runs/" + encodeURIComponent(id));
      const add = (tag, value) => { const node = document.createElement(tag); node.textContent = value; box.appendChild(node); return node; };
      add("h3", run.id);
      add("h4", "Waiting for a human");
      const pending = box.appendChild(document.createElement("ul"));
      for (const p of run.pending) { const li = document.createElement("li"); li.textContent = p.tool + " · call " + p.call_id + " · proposal " + p.proposal; pending.appendChild(li); }
      if (run.pending.length === 0) add("p", "None.");
      add("h4", "Late results waiting for delivery");
      const late = box.appendChild(document.createElement("ul"));
      for (const l of run.late) { const li = document.createElement("li"); li.textContent = l.tool + " · call " + l.call_id + ": " + l.text; late.appendChild(li); }
      if (run.late.length === 0) add("p", "None.");
      add("h4", "What the conversation has read");
      add("p", "Private data from: " + (run.exposure.private_from.join(", ") || "nothing yet"));
      add("p", "Untrusted content from: " + (run.exposure.untrusted_from.join(", ") || "nothing yet"));
    } catch (error) {
      const p = document.createElement("p");
      p.className = "result refused";
      p.textContent = "Could not show the run: " + error.message;
      box.appendChild(p);
    }
  }

  async function start() {
    try {
      csrf = (await call("GET", "/api/session")).csrf;
    } catch (error) {
      notice("No console session: " + error.message);
    }
    $("filter-run").addEventListener("change", refilter);
    $("filter-tool").addEventListener("change", refilter);
    $("run-form").addEventListener("submit", showRun);
    // Live: what waits is fetched again every two seconds; a reviewer may hold the list
    // still while reading (a decision is still checked against the store when sent).
    $("live").addEventListener("change", () => { if ($("live").checked) refresh(); });
    await refresh();
    setInterval(() => { if ($("live").checked) refresh(); }, POLL_MS);
  }

  document.addEventListener("DOMContentLoaded", start);
})();
