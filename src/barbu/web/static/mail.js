// E-mail notices on the profile's page: an address given and confirmed by the link mailed to it, then the
// kinds of mail this person wants ticked one by one (none until the address is confirmed).
"use strict";

const Mail = (() => {
  let box = null; // the part's form, drawn again after each change

  function profilePart() {
    box = h("div", { id: "mail-form" }, h("p", { class: "help" }, t("common.loading")));
    const part = h("section", { class: "part", id: "mail-part", "aria-labelledby": "mail-title" },
      h("h2", { id: "mail-title" }, t("mail.title")), h("p", { class: "help" }, t("mail.help")), box,
      h("p", { class: "own-said", id: "mail-said", role: "status" }));
    load();
    return part;
  }

  async function call(method, url, body) {
    const res = await fetch(url, { method, body: body === undefined ? undefined : JSON.stringify(body),
      headers: Object.assign({ "Content-Type": "application/json" }, Friends.headers()) });
    const data = await res.json().catch(() => ({}));
    if (!res.ok) throw new Error(data.error ? I18N.error(data.error) : `${res.status}`);
    return data;
  }

  async function load() {
    const res = await fetch("/api/me/mail", { headers: Friends.headers() }).catch(() => null);
    const data = res && res.ok ? await res.json().catch(() => null) : null;
    if (!data || !data.enabled) { $("mail-part").hidden = true; return; } // this server sends no mail
    draw(data);
  }

  function said(text) { $("mail-said").textContent = text; }

  function draw(m) {
    const input = h("input", { type: "email", id: "mail-address", autocomplete: "email", maxlength: 254,
      required: true, value: m.address || "", "aria-describedby": "mail-state" });
    const form = h("form", { id: "mail-address-form", class: "mail-address", onsubmit: (ev) => {
      ev.preventDefault();
      change("PUT", "/api/me/mail", { address: input.value, lang: I18N.lang }, "mail.sent");
    } }, h("label", { for: "mail-address" }, t("mail.address")), input,
      h("button", { type: "submit" }, t(m.address ? "mail.change" : "mail.send-link")));
    const state = !m.address ? t("mail.none")
      : t(m.verified ? "mail.is-confirmed" : "mail.is-pending", { address: m.address });
    const kinds = h("fieldset", { id: "mail-events", class: "mail-events", disabled: !m.verified },
      h("legend", {}, t("mail.events")),
      m.verified ? null : h("p", { class: "help" }, t("mail.confirm-first")),
      m.kinds.map((k) => h("label", { class: "mail-kind" },
        h("input", { type: "checkbox", value: k, checked: m.events.includes(k), onchange: () => saveKinds() }),
        h("span", {}, t(`mail.kind-${k}`)))));
    fill(box, h("p", { id: "mail-state" }, state), form, m.address ? kinds : null,
      m.address ? h("button", { type: "button", id: "mail-remove",
        onclick: () => change("DELETE", "/api/me/mail", undefined, "mail.removed") }, t("mail.remove")) : null);
  }

  async function change(method, url, body, done) {
    said("");
    try {
      draw(await call(method, url, body));
      said(t(done));
    } catch (e) {
      said(e.message);
    }
  }

  function saveKinds() {
    const ticked = [...document.querySelectorAll("#mail-events input:checked")].map((b) => b.value);
    change("PUT", "/api/me/mail/events", { events: ticked }, "mail.saved");
  }

  return { profilePart };
})();
