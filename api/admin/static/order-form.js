// Order forms (templates/_order_form.html): the row buttons, and a garment's sizes once its
// style or colour has changed, without a reload. Each sends the form as the button would
// without script (the same POST, api/admin/orders.py) and swaps in only the part of the answer
// that changed: the garments, the lines or one garment's sizes. Whatever was typed while the
// answer was on its way is kept. Without script, or when an answer is not the form, the buttons
// submit the page as usual. Once rows are swapped in, the form gets an `order-changed` event:
// the running total (htmx, templates/_order_form.html) is asked for again. Choosing the customer
// swaps in the ship-to with that customer's addresses (templates/_ship_to_fields.html).
(function () {
  "use strict";
  var form = document.getElementById("order-form");
  if (!form || !window.fetch || !window.DOMParser || !window.CSS) return;
  var address = form.getAttribute("action"); // form.action is its buttons named "action"
  var latest = {}; // region id -> the AbortController of its latest request

  function regionOf(action) {
    var sizes = /^(?:refresh|sizes)-(\d+)$/.exec(action);
    if (sizes) return "items-" + sizes[1] + "-sizes";
    if (action === "ship_to") return "ship-to";
    return action === "add_line" ? "lines" : "garments";
  }

  // name -> value of the fields a person types in or picks under `root`
  function typed(root) {
    var found = {};
    root.querySelectorAll("input[name], select[name], textarea[name]").forEach(function (field) {
      if (field.type === "radio" && !field.checked) return; // a choice: the one chosen
      if (field.type !== "submit" && field.type !== "hidden") found[field.name] = field.value;
    });
    return found;
  }

  // A field of the parsed answer shows `value` once it is in the page.
  function show(field, value) {
    if (field.type === "radio") {
      field.closest("form, fieldset").querySelectorAll('input[type="radio"]').forEach(function (radio) {
        if (radio.name !== field.name) return;
        if (radio.value === value) radio.setAttribute("checked", "");
        else radio.removeAttribute("checked");
      });
    } else if (field.tagName === "SELECT") {
      field.querySelectorAll("option").forEach(function (option) {
        if (option.value === value) option.setAttribute("selected", "");
        else option.removeAttribute("selected");
      });
    } else if (field.tagName === "TEXTAREA") {
      field.textContent = value;
    } else {
      field.setAttribute("value", value);
    }
  }

  function submitWithoutScript(action) {
    var field = document.createElement("input");
    field.type = "hidden";
    field.name = "action";
    field.value = action;
    form.appendChild(field);
    form.submit();
  }

  function send(action, attempt) {
    var region = regionOf(action);
    if (latest[region]) latest[region].abort();
    var control = new AbortController();
    latest[region] = control;
    var data = new FormData(form);
    data.set("action", action);
    var sent = {};
    data.forEach(function (value, name) { sent[name] = String(value); });
    fetch(address, {
      method: "POST", body: new URLSearchParams(data), credentials: "same-origin",
      signal: control.signal, headers: { Accept: "text/html" },
    }).then(function (response) {
      if (!response.ok || response.redirected) throw new Error("not the form");
      return response.text();
    }).then(function (text) {
      if (latest[region] !== control) return;
      delete latest[region];
      var fresh = new DOMParser().parseFromString(text, "text/html").getElementById(region);
      var current = document.getElementById(region);
      if (!fresh || !current) throw new Error("not the form");
      var now = typed(current);
      var unplaced = false;
      Object.keys(now).forEach(function (name) {
        if (now[name] === (sent[name] || "")) return; // as sent: the answer has it
        var field = fresh.querySelector('[name="' + CSS.escape(name) + '"]');
        if (field) show(field, now[name]);
        else if (now[name]) unplaced = true;
      });
      if (unplaced && region !== "garments" && region !== "lines" && attempt < 3) {
        // a size typed meanwhile has no box in the new run: ask again with it
        send(action.replace(/^refresh/, "sizes"), attempt + 1);
        return;
      }
      var active = document.activeElement;
      var keep = active && current.contains(active) && active.id ? active : null;
      var wanted = fresh.querySelector("[autofocus]"); // the new row's first field
      if (wanted) wanted.removeAttribute("autofocus"); // focused below, not by the browser
      var node = document.importNode(fresh, true);
      current.replaceWith(node);
      form.dispatchEvent(new Event("order-changed"));
      var focus = wanted && wanted.id ? document.getElementById(wanted.id) : null;
      if (focus) {
        focus.focus();
      } else if (keep) {
        var again = document.getElementById(keep.id);
        if (again) {
          again.focus();
          if (typeof keep.selectionStart === "number" && again.setSelectionRange) {
            again.setSelectionRange(keep.selectionStart, keep.selectionEnd);
          }
        }
      }
    }).catch(function (error) {
      if (error && error.name === "AbortError") return;
      if (latest[region] === control) delete latest[region];
      if (!/^sizes-/.test(action)) submitWithoutScript(action);
    });
  }

  form.addEventListener("click", function (event) {
    var button = event.target.closest('button[name="action"]');
    if (!button || button.value === "save" || !form.contains(button)) return;
    event.preventDefault();
    send(button.value, 0);
  });

  form.addEventListener("change", function (event) {
    var found = /^items-(\d+)-(?:style|colour)$/.exec(event.target.name || "");
    if (found) send("sizes-" + found[1], 0);
    else if (event.target.name === "customer") send("ship_to", 0);
  });
})();
