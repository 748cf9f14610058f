// agent-bridge inbox: live updates without a reload. The page works without this file; it only
// (1) listens on /inbox/events and, when the pending rows change, fetches the same page again and
// swaps in its <main> and the pending count, keeping what the person had changed in its form fields
// and not yet sent, and (2) keeps the "age" texts current.
"use strict";
(function () {
  var main = document.querySelector("main[data-version]");
  if (main === null) return;
  var live = document.getElementById("live");
  var current = main.getAttribute("data-version");
  var busy = false;
  var again = false;

  function announce(text) {
    if (live !== null) live.textContent = text;
  }

  function ageText(ms) {
    var s = Math.max(0, Math.round(ms / 1000));
    if (s < 60) return s + " s ago";
    var m = Math.floor(s / 60);
    if (m < 60) return m + " min ago";
    var h = Math.floor(m / 60);
    if (h < 48) return h + " h ago";
    return Math.floor(h / 24) + " days ago";
  }

  function refreshAges() {
    var now = Date.now();
    var times = document.querySelectorAll("time.age[datetime]");
    for (var i = 0; i < times.length; i++) {
      var t = Date.parse(times[i].getAttribute("datetime"));
      if (!isNaN(t)) times[i].textContent = ageText(now - t);
    }
  }

  // A form field the person has changed and not yet sent (a filter chosen, a reason typed): its
  // value, to be put back on the field of the same id in the swapped-in page, so that a live update
  // between choosing and sending does not undo the choice.
  function editedFields(root) {
    var out = [];
    var fields = root.querySelectorAll("select[id], input[id], textarea[id]");
    for (var i = 0; i < fields.length; i++) {
      var f = fields[i];
      if (f.tagName === "SELECT") {
        var picked = [];
        var changed = false;
        for (var j = 0; j < f.options.length; j++) {
          if (f.options[j].selected !== f.options[j].defaultSelected) changed = true;
          if (f.options[j].selected) picked.push(f.options[j].value);
        }
        if (changed) out.push({ id: f.id, select: picked });
      } else if (f.type === "checkbox" || f.type === "radio") {
        if (f.checked !== f.defaultChecked) out.push({ id: f.id, checked: f.checked });
      } else if (f.type !== "hidden" && f.value !== f.defaultValue) {
        out.push({ id: f.id, value: f.value });
      }
    }
    return out;
  }

  function restoreFields(edited) {
    for (var i = 0; i < edited.length; i++) {
      var e = edited[i];
      var f = document.getElementById(e.id);
      if (f === null || !main.contains(f)) continue;
      if (e.select !== undefined && f.tagName === "SELECT") {
        for (var j = 0; j < f.options.length; j++) f.options[j].selected = e.select.indexOf(f.options[j].value) >= 0;
      } else if (e.checked !== undefined) {
        f.checked = e.checked;
      } else if (e.value !== undefined) {
        f.value = e.value;
      }
    }
  }

  function swap(doc) {
    var next = doc.querySelector("main[data-version]");
    if (next === null) return;
    var focusedId = document.activeElement && main.contains(document.activeElement) ? document.activeElement.id : "";
    var edited = editedFields(main);
    main.replaceWith(next);
    main = next;
    restoreFields(edited);
    current = next.getAttribute("data-version");
    var count = doc.getElementById("pending-count");
    var here = document.getElementById("pending-count");
    if (count !== null && here !== null) here.textContent = count.textContent;
    if (focusedId !== "") {
      var target = document.getElementById(focusedId);
      if (target !== null) target.focus();
    }
    refreshAges();
    announce("The inbox changed: " + (here !== null ? here.textContent : "") + " pending.");
  }

  function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    fetch(location.href, { credentials: "same-origin", headers: { accept: "text/html" } })
      .then(function (res) {
        if (res.redirected && new URL(res.url).pathname === "/inbox/signin") {
          location.assign(res.url);
          return null;
        }
        // Error pages (a row gone, a failure) are pages too: show whatever the server says now.
        return res.text();
      })
      .then(function (text) {
        if (text !== null) swap(new DOMParser().parseFromString(text, "text/html"));
      })
      .catch(function () { /* the next event tries again */ })
      .then(function () {
        busy = false;
        if (again) { again = false; refresh(); }
      });
  }

  // Signing out here ends this page's event stream too: its "signedout" must not race the form's
  // own redirect (which shows "You are signed out.") with the "session expired" page.
  var leaving = false;
  var signout = document.querySelector('form[action="/inbox/signout"]');
  if (signout) signout.addEventListener("submit", function () { leaving = true; });

  if (typeof EventSource === "function") {
    // Console pages (runs, clients) follow their own feed; the rest the inbox's.
    var events = new EventSource(main.getAttribute("data-feed") || "/inbox/events");
    events.addEventListener("inbox", function (e) {
      if (e.data !== current) refresh();
    });
    events.addEventListener("signedout", function () {
      events.close();
      if (!leaving) location.assign("/inbox/signin?expired=1");
    });
  }
  refreshAges();
  setInterval(refreshAges, 30000);
})();
