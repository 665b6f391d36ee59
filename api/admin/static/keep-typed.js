// Back finds the form as it was left (docs/admin.md, "Back after a submit"). A page names its
// form on this script's tag:
//   <script src=".../keep-typed.js" data-form="order-form" data-redraw="sizes"
//           data-guard="revision" defer></script>
//
// What is typed is kept in the page's own history entry (history.state): the fields the form
// would send, hidden ones too (the one-time token of api/admin/once.py, so Save after Back
// opens the record the first Save made), never the CSRF token. When the browser comes back to
// the entry with a fresh copy of the page rather than from its back/forward cache (a POST to
// the form's own address drops the cached copy; rows added by script and fields marked
// autocomplete="off" are not restored by the browser), the kept fields are put back. When the
// page has other fields than the kept form (garments or lines added or removed), the form is
// asked for as typed, with the POST a row button makes and `data-redraw` as its action, and its
// content is swapped in. `data-guard` names a hidden field (the edit form's revision): when
// the page's differs from the kept one the record was saved since, and the page is shown as it
// is now. Without script the browser's own restoring is all there is.
(function () {
  "use strict";
  var KEY = "keptForms";
  var CSRF = "_csrf_token";
  var SAVE_MS = 250;
  var script = document.currentScript;
  if (!script || !window.history || !window.fetch || !window.DOMParser || !window.CSS) return;
  var form = document.getElementById(script.getAttribute("data-form") || "");
  if (!form || form.tagName !== "FORM") return;
  var redraw = script.getAttribute("data-redraw") || "";
  var guard = script.getAttribute("data-guard") || "";
  var ready = false; // nothing is kept until what was kept has been put back
  var timer = null;
  var meanwhile = {}; // names typed in while the form was being asked for

  // The fields a person fills in or the server set (no buttons, files or CSRF token).
  function named() {
    return Array.prototype.filter.call(form.elements, function (field) {
      return field.name && field.name !== CSRF &&
        !/^(submit|button|reset|file|image)$/.test(field.type);
    });
  }

  // What the form holds: `fields`, [name, value] as it would send them (ticked boxes only);
  // `names`, every field's name, so an unticked box is told from one the page did not have.
  function snapshot() {
    var fields = [];
    var names = {};
    named().forEach(function (field) {
      names[field.name] = true;
      if ((field.type === "checkbox" || field.type === "radio") && !field.checked) return;
      if (field.type === "select-multiple") {
        Array.prototype.forEach.call(field.selectedOptions, function (option) {
          fields.push([field.name, option.value]);
        });
      } else {
        fields.push([field.name, field.value]);
      }
    });
    return { fields: fields, names: Object.keys(names) };
  }

  function state() {
    var now = history.state;
    return now && typeof now === "object" && !Array.isArray(now) ? now : {};
  }

  function kept() {
    var mine = (state()[KEY] || {})[form.id];
    return mine && Array.isArray(mine.fields) && Array.isArray(mine.names) ? mine : null;
  }

  function keep(value) {
    var now = Object.assign({}, state());
    var all = Object.assign({}, now[KEY]);
    if (value) all[form.id] = value;
    else delete all[form.id];
    now[KEY] = all;
    try {
      history.replaceState(now, "");
    } catch (e) {
      // too large, or the browser throttles: Back shows what the browser keeps
    }
  }

  function save() {
    clearTimeout(timer);
    if (ready) keep(snapshot());
  }

  function saveSoon() {
    clearTimeout(timer);
    timer = setTimeout(save, SAVE_MS);
  }

  function byName(pairs) {
    var values = {};
    pairs.forEach(function (pair) {
      (values[pair[0]] = values[pair[0]] || []).push(pair[1]);
    });
    return values;
  }

  // Put `values` (name -> values in the order the form sends them) into the page's fields of
  // those `names`; a box whose value is not among its name's values is unticked.
  function apply(values, names) {
    var used = {};
    named().forEach(function (field) {
      if (!names[field.name]) return;
      var list = values[field.name] || [];
      if (field.type === "checkbox" || field.type === "radio") {
        field.checked = list.indexOf(field.value) >= 0;
      } else if (field.type === "select-multiple") {
        Array.prototype.forEach.call(field.options, function (option) {
          option.selected = list.indexOf(option.value) >= 0;
        });
      } else {
        var at = used[field.name] || 0;
        if (at < list.length) field.value = list[at];
        used[field.name] = at + 1;
      }
    });
  }

  function sameNames(names) {
    var here = {};
    named().forEach(function (field) { here[field.name] = true; });
    var mine = Object.keys(here);
    return mine.length === Object.keys(names).length &&
      mine.every(function (name) { return names[name]; });
  }

  function done() {
    ready = true;
    save();
  }

  // The form as typed, from its own address, in place of this page's.
  function askFor(was, values, names) {
    var body = new URLSearchParams();
    var token = form.querySelector('input[name="' + CSRF + '"]');
    if (token) body.append(CSRF, token.value);
    was.fields.forEach(function (pair) { body.append(pair[0], pair[1]); });
    body.set("action", redraw);
    fetch(form.getAttribute("action"), {
      method: "POST", body: body, credentials: "same-origin", headers: { Accept: "text/html" },
    }).then(function (response) {
      if (!response.ok || response.redirected) throw new Error("not the form");
      return response.text();
    }).then(function (text) {
      var fresh = new DOMParser().parseFromString(text, "text/html").getElementById(form.id);
      if (!fresh) throw new Error("not the form");
      // The answer is the form as kept (the server's reading of it: a size typed in the
      // "other size" box has its own column now); only what was typed meanwhile goes on top.
      var now = byName(snapshot().fields.filter(function (pair) { return meanwhile[pair[0]]; }));
      fresh.querySelectorAll("[autofocus]").forEach(function (field) {
        field.removeAttribute("autofocus");
      });
      form.replaceChildren.apply(form, Array.prototype.map.call(fresh.childNodes, function (node) {
        return document.importNode(node, true);
      }));
      apply(now, meanwhile);
      if (window.htmx) window.htmx.process(form); // the running total asks again
    }).catch(function () {
      apply(values, names); // what has a place in this page
    }).then(done);
  }

  function restore() {
    var was = kept();
    if (!was) return done();
    var values = byName(was.fields);
    var names = {};
    was.names.forEach(function (name) { names[name] = true; });
    if (guard) {
      var field = form.querySelector('input[name="' + CSS.escape(guard) + '"]');
      if (field && values[guard] && field.value !== values[guard][0]) {
        return done(); // saved since: the page shows the record as it is now
      }
    }
    if (sameNames(names) || !redraw) {
      apply(values, names);
      return done();
    }
    askFor(was, values, names);
  }

  function typedIn(event) {
    if (event.target && event.target.name) meanwhile[event.target.name] = true;
  }
  form.addEventListener("input", function (event) { typedIn(event); saveSoon(); });
  form.addEventListener("change", function (event) { typedIn(event); save(); });
  form.addEventListener("submit", save);
  form.addEventListener("order-changed", saveSoon); // rows swapped in (order-form.js)
  window.addEventListener("pagehide", save);
  restore();
})();
