// Notifications on the profile's page: this device told of its turn and of a game's end (Web Push).
// The browser asks for permission only when the person clicks; the subscription is kept by the server
// for the signed-in profile, in the language this page uses.
"use strict";

const Notify = (() => {
  const supported = () => "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;

  let form = null; // the part's form, drawn again after each change

  function profilePart() {
    form = h("div", { id: "notify-form" }, h("p", { class: "help" }, t("common.loading")));
    const part = h("section", { class: "part", id: "notify-part", "aria-labelledby": "notify-title" },
      h("h2", { id: "notify-title" }, t("notify.title")), h("p", { class: "help" }, t("notify.help")), form,
      h("p", { class: "own-said", id: "notify-said", role: "status" }));
    show();
    return part;
  }

  async function serverKey() {
    const res = await fetch("/api/push/key");
    return res.ok ? (await res.json()).key : null;
  }

  async function current() {
    const reg = await navigator.serviceWorker.getRegistration();
    return reg ? reg.pushManager.getSubscription() : null;
  }

  async function show() {
    if (!supported()) return fill(form, h("p", { class: "help" }, t("notify.unsupported")));
    const key = await serverKey().catch(() => null);
    if (!key) { $("notify-part").hidden = true; return; } // this server sends none: nothing to offer
    if (Notification.permission === "denied") return fill(form, h("p", { class: "help" }, t("notify.denied")));
    const sub = await current().catch(() => null);
    fill(form, h("p", { id: "notify-state" }, t(sub ? "notify.is-on" : "notify.is-off")),
      h("button", { type: "button", id: "notify-button", onclick: () => (sub ? stop(sub) : start(key)) },
        t(sub ? "notify.off" : "notify.on")));
  }

  async function send(method, body) {
    const res = await fetch("/api/me/push", { method, body: JSON.stringify(body),
      headers: Object.assign({ "Content-Type": "application/json" }, Friends.headers()) });
    const data = await res.json().catch(() => ({}));
    if (!res.ok) throw new Error(data.error ? I18N.error(data.error) : `${res.status}`);
  }

  function keyBytes(text) {
    const raw = atob(text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - text.length % 4) % 4));
    return Uint8Array.from(raw, (c) => c.charCodeAt(0));
  }

  async function start(key) {
    $("notify-said").textContent = "";
    try {
      if (await Notification.requestPermission() !== "granted") return show();
      const reg = await navigator.serviceWorker.ready;
      const sub = await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key) });
      await send("POST", { subscription: sub.toJSON(), lang: I18N.lang });
      $("notify-said").textContent = t("notify.saved-on");
    } catch (e) {
      $("notify-said").textContent = e.message;
    }
    show();
  }

  async function stop(sub) {
    $("notify-said").textContent = "";
    try {
      await send("DELETE", { endpoint: sub.endpoint });
      await sub.unsubscribe();
      $("notify-said").textContent = t("notify.saved-off");
    } catch (e) {
      $("notify-said").textContent = e.message;
    }
    show();
  }

  // -- at a table at your own pace: this table's notifications, for the signed-in profile --------------

  const switches = {}; // by table id: drawn again with each state, asked of the server once

  function tableSwitch(tableId) {
    if (!Friends.headers()["X-Barbu-Player"]) return null;
    if (switches[tableId]) return switches[tableId];
    const where = `/api/me/push/tables/${encodeURIComponent(tableId)}`;
    const box = h("input", { type: "checkbox", id: "notify-table" });
    const label = h("label", { class: "notify-table", hidden: "" }, box, " ", t("notify.table"));
    switches[tableId] = label;
    fetch(where, { headers: Friends.headers() }).then((r) => (r.ok ? r.json() : null)).then((d) => {
      if (d) { box.checked = d.on; label.hidden = false; }
    }).catch(() => {});
    box.addEventListener("change", async () => {
      const res = await fetch(where, { method: "PUT", body: JSON.stringify({ on: box.checked }),
        headers: Object.assign({ "Content-Type": "application/json" }, Friends.headers()) }).catch(() => null);
      if (!res || !res.ok) box.checked = !box.checked; // not stored: shown as it is
    });
    return label;
  }

  return { profilePart, tableSwitch };
})();
