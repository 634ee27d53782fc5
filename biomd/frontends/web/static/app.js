// biomd web view: the citation panel, live events, uploads and the chat. Everything shown
// that comes from the server as text is put in with textContent; only HTML the server
// rendered (and escaped) is put in as HTML.
"use strict";
(function () {
  const csrf = document.querySelector('meta[name="csrf"]').content;
  const post = (url, body, type) => fetch(url, {
    method: "POST", credentials: "same-origin",
    headers: Object.assign({ "X-CSRF-Token": csrf }, type ? { "Content-Type": type } : {}),
    body: body,
  });

  // -- the citation panel --------------------------------------------------------------------
  const panel = document.getElementById("panel");
  const body = panel.querySelector(".panel-body");
  panel.querySelector(".close").addEventListener("click", () => { panel.hidden = true; });
  document.addEventListener("keydown", (e) => { if (e.key === "Escape") panel.hidden = true; });
  document.addEventListener("click", async (e) => {
    const link = e.target.closest("a.cite[data-doc]");
    if (!link) return;
    e.preventDefault();
    const holder = (a) => a.closest("li, p, td, blockquote") || a.parentElement;
    let claim = holder(link).textContent;
    const named = link.closest("p.named");
    if (named) {  // a source a chat message names: the claim is what the message cites it for
      const message = named.parentElement;
      claim = Array.from(message.querySelectorAll('a.cite[data-doc="' + link.dataset.doc + '"]'))
        .filter((a) => !a.closest("p.named")).map((a) => holder(a).textContent).join("\n") ||
        message.textContent;
    }
    body.textContent = "Finding the passage…";
    panel.hidden = false;
    const url = "/api/citation?doc=" + encodeURIComponent(link.dataset.doc) +
      "&claim=" + encodeURIComponent(claim.slice(0, 1500));
    const r = await fetch(url, { credentials: "same-origin" });
    const data = await r.json();
    body.textContent = "";
    if (!r.ok) { body.textContent = data.error || "Not found."; return; }
    const h = document.createElement("h2");
    h.textContent = "#" + data.doc + " " + data.name;
    const when = document.createElement("p");
    when.textContent = (data.date ? data.date.slice(0, 10) + " · " : "") +
      "characters " + data.start + "–" + data.end;
    const pre = document.createElement("pre");
    let at = 0;
    for (const [s, t] of data.marks) {
      pre.append(document.createTextNode(data.text.slice(at, s)));
      const m = document.createElement("mark");
      m.textContent = data.text.slice(s, t);
      pre.append(m);
      at = t;
    }
    pre.append(document.createTextNode(data.text.slice(at)));
    const more = document.createElement("a");
    more.href = "/source/" + data.doc + "?at=" + data.start;
    more.textContent = "Read on in the whole source →";
    body.append(h, when, pre, more);
  });

  // -- live events ------------------------------------------------------------------------------
  const live = document.getElementById("live");
  const jobs = document.getElementById("jobs");
  const uploads = document.getElementById("uploads");
  const steps = document.getElementById("steps");
  const messages = document.getElementById("messages");
  const toast = (text) => {
    const d = document.createElement("div");
    d.textContent = text;
    live.append(d);
    setTimeout(() => d.remove(), 8000);
  };
  const rendered = async (text) => {
    const r = await post("/api/render", JSON.stringify({ text: text }), "application/json");
    return (await r.json()).html;
  };
  let events;
  try { events = new EventSource("/events"); } catch (e) { events = null; }
  if (events) {
    events.addEventListener("status", (e) => {
      const ev = JSON.parse(e.data);
      const done = /: done$/.test(ev.text);
      // a file dropped on this page: its line in the list of uploads says how it went
      const upload = uploads && Array.from(uploads.querySelectorAll("li.sent"))
        .find((li) => ev.text.startsWith(li.dataset.name + ": ") || ev.text.includes(" " + li.dataset.name + ": "));
      if (upload) {
        upload.textContent = ev.text;
        if (done || !/…$/.test(ev.text)) {  // its last word: done, or what happened instead
          upload.classList.remove("sent");
          upload.classList.add(done ? "ok" : "bad");
        }
      } else if (jobs) {
        let li = jobs.querySelector('li[data-message="' + CSS.escape(ev.message) + '"]');
        if (!li) { li = document.createElement("li"); li.dataset.message = ev.message; jobs.prepend(li); }
        li.textContent = ev.text;
        li.className = done ? "ok" : (/…$/.test(ev.text) ? "" : "bad");
      } else { toast(ev.text); }
      if (done && jobs && !(uploads && uploads.querySelector("li.sent"))) {
        setTimeout(() => location.reload(), 1500);  // the table shows what arrived
      }
    });
    events.addEventListener("message", async (e) => {
      const ev = JSON.parse(e.data);
      if (messages) {
        const li = document.createElement("li");
        li.className = "assistant";
        li.innerHTML = await rendered(ev.text);
        messages.append(li);
        li.scrollIntoView({ block: "end" });
        if (steps) steps.textContent = "";
      } else if (!(uploads && Array.from(uploads.children).some((li) => ev.text.includes(li.dataset.name + ":")))) {
        toast(ev.text.split("\n")[0]);  // (what a file dropped here says is in its line already)
      }
    });
    events.addEventListener("step", (e) => {
      const ev = JSON.parse(e.data);
      if (!steps || ev.step === "report") return;  // the answer arrives as a message
      const li = document.createElement("li");
      li.textContent = ev.text;
      steps.append(li);
    });
  }

  // -- the chat -----------------------------------------------------------------------------------
  const ask = document.getElementById("ask");
  if (ask) {
    ask.addEventListener("submit", async (e) => {
      e.preventDefault();
      const text = ask.elements.text.value.trim();
      if (!text) return;
      const li = document.createElement("li");
      li.className = "user";
      li.textContent = text;
      messages.append(li);
      ask.elements.text.value = "";
      steps.textContent = "";
      const wait = document.createElement("li");
      wait.textContent = "The biographer is working…";
      steps.append(wait);
      const r = await post("/chat", JSON.stringify({ text: text }), "application/json");
      if (!r.ok) wait.textContent = (await r.json()).error || "Not sent.";
    });
  }

  // -- uploads ----------------------------------------------------------------------------------------
  const drop = document.getElementById("drop");
  if (drop) {
    const send = async (file) => {
      const li = document.createElement("li");
      li.dataset.name = file.name;
      li.className = "sent";  // its job's status lines come here from now on
      li.textContent = file.name + ": sending…";
      uploads.append(li);
      const r = await fetch("/upload?name=" + encodeURIComponent(file.name), {
        method: "PUT", credentials: "same-origin", headers: { "X-CSRF-Token": csrf }, body: file,
      });
      const data = await r.json().catch(() => ({}));
      if (!r.ok) {
        li.textContent = file.name + ": " + (data.error || "refused (" + r.status + ")");
        li.className = "bad";
      } else if (li.textContent.endsWith(": sending…")) {
        li.textContent = file.name + ": queued";
      }
    };
    const sendAll = (files) => { for (const f of files) send(f); };
    drop.addEventListener("dragover", (e) => { e.preventDefault(); drop.classList.add("over"); });
    drop.addEventListener("dragleave", () => drop.classList.remove("over"));
    drop.addEventListener("drop", (e) => { e.preventDefault(); drop.classList.remove("over"); sendAll(e.dataTransfer.files); });
    document.getElementById("files").addEventListener("change", (e) => {
      sendAll(e.target.files);
      e.target.value = "";  // so that choosing the same file again sends it again
    });
  }
})();
