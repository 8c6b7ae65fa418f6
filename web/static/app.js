// Supportdesk chat. Every piece of server text is untrusted: it reaches the page only through
// textContent and createElement, never through an HTML-parsing API.
"use strict";

const STEP_LABELS = {
  sanitizer: "Sanitizer", judge: "Security judge", guardrail: "Guardrail", recall: "Memory recall",
  agent: "Support agent", masker: "Data masker", save: "Memory save",
};
const OUTCOME_LABELS = {
  answered: "Answer", needs_confirmation: "Please confirm", blocked: "Blocked", capped: "Stopped early",
  refused: "Refused", error: "Error",
};
// The signed pending action of the last turn (needs_confirmation). It goes back with the next
// message only, whatever that message is: the desk executes it on an exact "yes", drops it otherwise.
let pendingToken = null;

const byId = (id) => document.getElementById(id);

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function count(n, noun) {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

function ms(value) {
  return value === null || value === undefined ? "" : `${Number(value).toFixed(value < 10 ? 1 : 0)} ms`;
}

async function errorText(response, fallback) {
  try {
    const body = await response.json();
    if (body && typeof body.error === "string") return body.error;
  } catch (_) { /* not JSON: use the fallback */ }
  return fallback;
}

function retryHint(response) {
  const seconds = response.headers.get("Retry-After");
  return seconds ? ` (try again in ${seconds} s)` : "";
}

function showLogin(message) {
  byId("who").hidden = true;
  byId("chat-view").hidden = true;
  byId("login-view").hidden = false;
  byId("login-error").textContent = message || "";
  byId("email").focus();
}

function showChat(me) {
  byId("who-name").textContent = me.full_name ? `${me.full_name} · ${me.email}` : me.email;
  byId("who").hidden = false;
  byId("login-view").hidden = true;
  byId("chat-view").hidden = false;
  byId("message").focus();
}

class TurnView {
  constructor(text) {
    this.root = el("li", "turn");
    this.root.append(el("p", "you", text));
    this.steps = el("ol", "steps");
    this.tools = el("div", "tools");
    this.outcome = el("div", "outcome pending", "Working…");
    this.meta = el("p", "meta");
    this.root.append(this.steps, this.tools, this.outcome, this.meta);
    this.stepRows = new Map();
    this.ended = false;
    this.root.dataset.status = "pending";
  }

  apply(event) {
    if (event.type === "turn") this.started(event);
    else if (event.type === "step") this.step(event);
    else if (event.type === "tool") this.tool(event);
    else if (event.type === "final") this.final(event);
    else if (event.type === "error") this.error(event);
  }

  started(event) {
    this.root.dataset.turnId = event.turn_id;
  }

  step(event) {
    let row = this.stepRows.get(event.name);
    if (!row) {
      row = el("li", "step");
      row.append(el("span", "name", STEP_LABELS[event.name] || event.name), el("span", "status"), el("span", "ms"));
      this.stepRows.set(event.name, row);
      this.steps.append(row);
    }
    row.dataset.step = event.name;
    row.dataset.status = event.status;
    row.querySelector(".status").textContent = event.status === "started" ? "running…" : event.status;
    row.querySelector(".ms").textContent = ms(event.ms);
    const reason = event.detail && typeof event.detail.reason === "string" ? event.detail.reason : "";
    row.title = event.status === "blocked" || event.status === "skipped" ? reason : "";
  }

  tool(event) {
    const card = el("div", "tool-card");
    card.dataset.status = event.status;
    card.append(el("span", "tool-name", event.name));
    const args = Object.entries(event.args || {});
    if (args.length) {
      const list = el("dl", "tool-args");
      for (const [key, value] of args) {
        list.append(el("dt", null, key), el("dd", null, typeof value === "string" ? value : JSON.stringify(value)));
      }
      card.append(list);
    }
    const rows = event.row_count === null || event.row_count === undefined ? "" : ` · ${count(event.row_count, "row")}`;
    card.append(el("span", "tool-meta", `${event.status} · ${ms(event.ms)}${rows}`));
    this.tools.append(card);
  }

  setOutcome(status, heading, lines) {
    this.ended = true;
    this.root.dataset.status = status;
    this.outcome.className = `outcome ${status}`;
    this.outcome.replaceChildren(el("strong", "label", heading));
    for (const line of lines) if (line) this.outcome.append(el("p", null, line));
  }

  final(event) {
    let heading = OUTCOME_LABELS[event.status] || event.status;
    if (event.status === "blocked" && event.blocked_by) heading += ` by ${STEP_LABELS[event.blocked_by] || event.blocked_by}`;
    const reason = event.status === "answered" ? "" : event.reason ? `Reason: ${event.reason}` : "";
    this.setOutcome(event.status, heading, [event.answer, event.pending ? "" : reason]);
    if (event.pending) this.confirmCard(event.pending);
    const usage = event.usage || {};
    this.setMeta(`Tokens ${usage.input_tokens || 0} in · ${usage.output_tokens || 0} out · ` +
      `${count(usage.tool_calls || 0, "tool call")} · ${ms(event.latency_ms)}`);
  }

  confirmCard(pending) {
    pendingToken = pending.token;
    const card = el("div", "confirm-card");
    card.setAttribute("role", "group");
    card.setAttribute("aria-label", "Confirm this request");
    card.append(el("p", "confirm-title", "This will be recorded for our team:"), el("p", "confirm-summary", pending.summary));
    const yes = el("button", "confirm-yes", "Confirm");
    const no = el("button", "confirm-no", "Cancel");
    for (const [button, reply] of [[yes, "yes"], [no, "no"]]) {
      button.type = "button";
      button.addEventListener("click", () => {
        yes.disabled = no.disabled = true;
        submitText(reply);
      });
    }
    card.append(yes, no);
    this.outcome.append(card);
    yes.focus();
  }

  error(event) {
    const heading = event.cancelled ? "Cancelled" : `Error in ${STEP_LABELS[event.stage] || event.stage}`;
    this.setOutcome("error", heading, [event.message]);
    this.setMeta(ms(event.latency_ms));
  }

  setMeta(text) {
    this.meta.replaceChildren(el("span", null, text));
  }

  fail(message) {
    this.setOutcome("error", "Error", [message]);
  }
}

async function streamTurn(response, view) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    buffer += decoder.decode(value || new Uint8Array(), { stream: !done });
    let newline;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      if (line) view.apply(JSON.parse(line));
    }
    if (done) break;
  }
  if (!view.ended) view.fail("The connection ended before the answer arrived. Please try again.");
}

async function send(text) {
  const pending = pendingToken;
  pendingToken = null;
  const view = new TurnView(text);
  byId("turns").append(view.root);
  view.root.scrollIntoView({ block: "end" });
  const response = await fetch("/api/chat", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(pending ? { message: text, pending } : { message: text }),
  });
  if (response.status === 401) {
    view.fail("Your session has ended.");
    showLogin("Your session has ended. Please log in again.");
    return;
  }
  if (!response.ok) {
    const hint = response.status === 429 ? retryHint(response) : "";
    view.fail((await errorText(response, "The message could not be sent.")) + hint);
    return;
  }
  await streamTurn(response, view);
}

async function onChat(event) {
  event.preventDefault();
  const box = byId("message");
  const text = box.value.trim();
  if (!text) return;
  box.value = "";
  await submitText(text);
}

async function submitText(text) {
  const box = byId("message");
  const button = byId("send");
  button.disabled = true;
  try {
    await send(text);
  } catch (_) {
    const last = byId("turns").lastElementChild;
    if (last) last.dataset.status = "error";
  } finally {
    button.disabled = false;
    if (!pendingToken) box.focus();  // a new confirmation card keeps the focus on its Confirm button
  }
}

async function onLogin(event) {
  event.preventDefault();
  const button = byId("login-button");
  button.disabled = true;
  byId("login-error").textContent = "";
  try {
    const response = await fetch("/api/login", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email: byId("email").value, password: byId("password").value }),
    });
    if (response.ok) {
      byId("password").value = "";
      showChat(await response.json());
    } else {
      const hint = response.status === 429 ? retryHint(response) : "";
      byId("login-error").textContent = (await errorText(response, "Logging in failed.")) + hint;
    }
  } catch (_) {
    byId("login-error").textContent = "The desk cannot be reached. Please try again.";
  } finally {
    button.disabled = false;
  }
}

async function onLogout() {
  try {
    await fetch("/api/logout", { method: "POST" });
  } finally {
    byId("turns").replaceChildren();
    showLogin("You are logged out.");
  }
}

function onKey(event) {
  if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    byId("chat-form").requestSubmit();
  }
}

async function start() {
  byId("login-form").addEventListener("submit", onLogin);
  byId("chat-form").addEventListener("submit", onChat);
  byId("logout").addEventListener("click", onLogout);
  byId("message").addEventListener("keydown", onKey);
  try {
    const response = await fetch("/api/me");
    if (response.ok) showChat(await response.json());
    else showLogin();
  } catch (_) {
    showLogin("The desk cannot be reached. Please try again.");
  }
}

document.addEventListener("DOMContentLoaded", start);
