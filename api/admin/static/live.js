// Live updates (docs/admin.md, "Live updates"): on a page with regions marked
// `data-live-region` (each with an id), listen to /admin/stream and, when an order changes,
// fetch the page again and put each region's fresh copy in place of the old one.
// - A region's attribute may name the address to fetch (the board after a refused move is
//   shown at the move's address); otherwise the page's own address is fetched.
// - A page with `data-live-order="<id>"` only follows that order's changes.
// - A region the user is typing in (a focused field, or a form changed and not yet sent)
//   is left alone until the field loses focus or the form is sent.
(function () {
  "use strict";

  var DEBOUNCE_MS = 300;
  var FIELDS = "input:not([type=hidden]):not([type=submit]):not([type=button]), select, textarea";
  var script = document.currentScript;
  var changed = new Set(); // forms with a field changed since the page (or region) was shown
  var timer = null;
  var running = false;
  var again = false;
  var stream = null;

  function regions() {
    return Array.prototype.slice.call(document.querySelectorAll("[data-live-region][id]"));
  }

  function busy(region) {
    var active = document.activeElement;
    if (active && region.contains(active) && active.matches(FIELDS)) {
      return true;
    }
    var found = false;
    changed.forEach(function (form) {
      if (!document.contains(form)) {
        changed.delete(form);
      } else if (region.contains(form) || form.contains(region)) {
        found = true;
      }
    });
    return found;
  }

  function addressOf(region) {
    var named = region.getAttribute("data-live-region");
    return named ? new URL(named, location.href).href : location.href;
  }

  function replace(region, fresh) {
    var active = document.activeElement;
    var focusId = active && region.contains(active) ? active.id : "";
    var copy = document.importNode(fresh, true);
    region.replaceWith(copy);
    if (window.htmx) {
      window.htmx.process(copy);
    }
    if (focusId) {
      var target = document.getElementById(focusId);
      if (target) {
        target.focus({ preventScroll: true });
      }
    }
  }

  function refresh() {
    if (running) {
      again = true;
      return;
    }
    var byAddress = {};
    var deferred = false;
    regions().forEach(function (region) {
      if (busy(region)) {
        deferred = true;
        return;
      }
      var address = addressOf(region);
      (byAddress[address] = byAddress[address] || []).push(region.id);
    });
    if (deferred) {
      again = true; // picked up on the next blur or submit
    }
    var addresses = Object.keys(byAddress);
    if (!addresses.length) {
      return;
    }
    running = true;
    Promise.all(
      addresses.map(function (address) {
        return fetch(address, { credentials: "same-origin", headers: { Accept: "text/html" } })
          .then(function (answer) {
            if (answer.redirected && /\/login(\?|$)/.test(new URL(answer.url).pathname + "?")) {
              stop(); // the session ended: the next click shows the login page
              return;
            }
            if (!answer.ok) {
              return;
            }
            return answer.text().then(function (html) {
              var fresh = new DOMParser().parseFromString(html, "text/html");
              byAddress[address].forEach(function (id) {
                var region = document.getElementById(id);
                var copy = fresh.getElementById(id);
                if (region && copy && copy.hasAttribute("data-live-region") && !busy(region)) {
                  replace(region, copy);
                }
              });
            });
          })
          .catch(function () {});
      })
    ).then(function () {
      running = false;
      document.dispatchEvent(new CustomEvent("live:updated"));
      if (again && !deferred) {
        again = false;
        soon();
      }
    });
  }

  function soon() {
    clearTimeout(timer);
    timer = setTimeout(refresh, DEBOUNCE_MS);
  }

  function onOrder(event) {
    var only = document.querySelector("[data-live-order]");
    if (only) {
      var data;
      try {
        data = JSON.parse(event.data);
      } catch (e) {
        return;
      }
      if (String(data.order_id) !== only.getAttribute("data-live-order")) {
        return;
      }
    }
    soon();
  }

  function stop() {
    if (stream) {
      stream.close();
      stream = null;
    }
  }

  function retryDeferred() {
    if (again && !running) {
      again = false;
      setTimeout(soon, 0); // after focus has moved to its next element
    }
  }

  if (!window.EventSource || !window.fetch || !script || !regions().length) {
    return;
  }
  document.addEventListener("input", function (event) {
    if (event.target.form) {
      changed.add(event.target.form);
    }
  });
  document.addEventListener("change", function (event) {
    if (event.target.form) {
      changed.add(event.target.form);
    }
  });
  document.addEventListener("submit", function (event) {
    changed.delete(event.target);
    retryDeferred();
  });
  document.addEventListener("reset", function (event) {
    changed.delete(event.target);
    retryDeferred();
  });
  document.addEventListener("focusout", retryDeferred);

  var lost = false;

  function start() {
    stream = new EventSource(new URL("../stream", script.src).href);
    stream.addEventListener("order", onOrder);
    stream.addEventListener("reset", soon);
    stream.addEventListener("error", function () {
      lost = true;
      document.documentElement.setAttribute("data-live", "lost");
    });
    stream.addEventListener("open", function () {
      document.documentElement.setAttribute("data-live", "open");
      if (lost) {
        lost = false;
        soon(); // back after a restart: whatever changed meanwhile is on the page again
      }
    });
  }

  // A hidden tab gives its connection back (browsers allow six per site over HTTP/1.1) and
  // catches up when it is shown again.
  function wake() {
    if (!stream && document.visibilityState === "visible") {
      start();
      soon();
    }
  }
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "hidden") {
      stop();
      document.documentElement.setAttribute("data-live", "paused");
    } else {
      wake();
    }
  });
  window.addEventListener("pagehide", stop);
  window.addEventListener("pageshow", function (event) {
    if (event.persisted) {
      wake();
    }
  });
  start();
})();
