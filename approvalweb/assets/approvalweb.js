// The approvals page's script: live updates (server-sent events) and
// answers without a reload. The page works without it: it reads as
// served, and its forms post and come back.
(function () {
  "use strict";
  var list = document.getElementById("list");
  var status = document.getElementById("status");
  var alert = document.getElementById("alert");
  var empty = document.getElementById("empty");
  if (!list || !window.EventSource || !window.fetch || !window.URLSearchParams) {
    return;
  }
  var answeredHere = {}; // ids this page answered: their removal is no news
  // Which approvals this page shows: a page of the list, or one approval.
  var page = +(list.getAttribute("data-page") || 1) || 1;
  var size = +(list.getAttribute("data-size") || 20) || 20;
  var only = list.getAttribute("data-id") || "";
  var total = -1; // how many wait, once the server said

  function say(text) {
    status.textContent = text;
  }
  function warn(text) {
    alert.textContent = text;
    alert.hidden = !text;
  }
  function items() {
    return list.querySelectorAll("li.approval");
  }
  function titleOf(li) {
    var h = li.querySelector("h2");
    return h ? h.textContent : "an approval";
  }
  function refresh() {
    var n = items().length;
    if (empty) {
      empty.hidden = n > 0;
    }
    var all = total >= 0 ? total : n;
    document.title = (all ? "(" + all + ") " : "") + "Approvals";
    var count = document.getElementById("count");
    var next = document.getElementById("next");
    var shown = document.getElementById("total");
    if (count && total >= 0) {
      count.hidden = total <= n && page === 1;
      if (shown) {
        shown.textContent = String(total);
      }
    }
    if (next && total >= 0) {
      next.hidden = total <= page * size;
    }
  }

  // Expiry times in the reader's own time zone, and how long is left.
  function showTimes(root) {
    var now = Date.now();
    root.querySelectorAll("time[datetime]").forEach(function (t) {
      var at = new Date(t.getAttribute("datetime"));
      var left = Math.round((at.getTime() - now) / 60000);
      var clock = at.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
      t.textContent = left > 1 ? "in " + left + " minutes (" + clock + ")" :
        left >= 0 ? "in about a minute (" + clock + ")" : "expired (" + clock + ")";
    });
  }

  function add(id, html) {
    if (document.getElementById("a-" + id)) {
      return;
    }
    var t = document.createElement("template");
    t.innerHTML = html.trim();
    var li = t.content.firstElementChild;
    if (!li) {
      return;
    }
    var at = li.getAttribute("data-expires");
    var before = null;
    items().forEach(function (o) {
      if (!before && o.getAttribute("data-expires") > at) {
        before = o;
      }
    });
    list.insertBefore(li, before);
    showTimes(li);
    refresh();
    say("New approval: " + titleOf(li) + ".");
  }

  // remove takes an approval off the page, moving the focus out of it
  // first when it was inside, to the next approval or the heading.
  function remove(id, news) {
    var li = document.getElementById("a-" + id);
    if (!li) {
      return;
    }
    var title = titleOf(li);
    var next = li.nextElementSibling || li.previousElementSibling;
    var hadFocus = li.contains(document.activeElement);
    li.remove();
    refresh();
    if (hadFocus) {
      (next ? next.querySelector("h2") : document.getElementById("heading")).focus();
    }
    if (news) {
      var expired = Date.parse(li.getAttribute("data-expires")) <= Date.now();
      say((expired ? "Expired: " : "Answered elsewhere: ") + title + ".");
    }
  }

  function connect() {
    var have = [];
    items().forEach(function (li) {
      have.push(li.id.slice(2));
    });
    var which = only ? "&id=" + encodeURIComponent(only) : "&page=" + page;
    var events = new EventSource("events?have=" + have.join(",") + which);
    var lost = false;
    events.addEventListener("add", function (e) {
      var m = JSON.parse(e.data);
      add(m.id, m.html);
    });
    events.addEventListener("remove", function (e) {
      remove(e.data, !answeredHere[e.data]);
    });
    events.addEventListener("leave", function (e) {
      remove(e.data, false); // still waiting, on another page of the list
    });
    events.addEventListener("count", function (e) {
      total = +e.data;
      refresh();
    });
    events.addEventListener("trouble", function (e) {
      say(e.data);
    });
    events.addEventListener("ok", function (e) {
      say(e.data);
    });
    events.addEventListener("open", function () {
      if (lost) {
        say("Live updates are back.");
      }
      lost = false;
    });
    events.addEventListener("error", function () {
      if (events.readyState === EventSource.CLOSED) {
        say("Live updates stopped: reload the page to see new approvals.");
      } else if (!lost) {
        lost = true;
        say("Live updates paused; reconnecting.");
      }
    });
  }

  // Answers go by fetch, as the same form would go without the script.
  list.addEventListener("submit", function (e) {
    var form = e.target;
    var li = form.closest("li.approval");
    if (!li) {
      return;
    }
    e.preventDefault();
    var body = new URLSearchParams(new FormData(form, e.submitter));
    var by = e.submitter;
    if (by && by.name && !body.has(by.name)) {
      body.append(by.name, by.value); // browsers whose FormData takes no submitter
    }
    var buttons = li.querySelectorAll("button");
    buttons.forEach(function (b) {
      b.disabled = true;
    });
    var id = li.id.slice(2);
    answeredHere[id] = true;
    fetch(form.action, {
      method: "POST",
      body: body,
      headers: { "Accept": "application/json" },
      credentials: "same-origin"
    }).then(function (r) {
      return r.json();
    }).then(function (res) {
      if (res.ok) {
        warn("");
        say(res.message + " (" + titleOf(li) + ")");
        remove(id, false);
        return;
      }
      warn(res.message);
      if (res.code === "replayed" || res.code === "expired") {
        remove(id, false); // it cannot be answered from here any more
        return;
      }
      delete answeredHere[id];
      buttons.forEach(function (b) {
        b.disabled = false;
      });
    }).catch(function () {
      delete answeredHere[id];
      warn("Your answer could not be sent. Check the connection and try again.");
      buttons.forEach(function (b) {
        b.disabled = false;
      });
    });
  });

  showTimes(document);
  setInterval(function () {
    showTimes(document);
  }, 15000);
  connect();
})();
