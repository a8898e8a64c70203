// The pages a mail's links open: /mail/confirm#CODE confirms an address, /mail/unsubscribe?kind=…&token=…
// turns one kind of mail off. Each acts only when its button is pressed (a POST): a mail scanner that
// opens the link changes nothing.
"use strict";

async function post(url, body) {
  const res = await fetch(url, { method: "POST", body,
    headers: { "Content-Type": body ? "application/json" : "application/x-www-form-urlencoded" } });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(data.error ? I18N.error(data.error) : `${res.status}`);
}

function setUp(title, help, button, act) {
  document.title = `Barbu: ${t(title)}`;
  document.getElementById("mail-title").textContent = t(title);
  document.getElementById("mail-help").textContent = t(help);
  const go = document.getElementById("mail-go");
  go.textContent = t(button);
  document.getElementById("mail-action").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const said = document.getElementById("mail-said");
    go.disabled = true;
    try {
      await act();
      said.textContent = t(title === "mail.confirm-title" ? "mail.confirmed" : "mail.unsubscribed");
      go.hidden = true;
    } catch (e) {
      said.textContent = e.message;
      go.disabled = false;
    }
  });
}

async function main() {
  await I18N.load();
  document.getElementById("lang-slot").append(I18N.switcher());
  if (location.pathname === "/mail/confirm") {
    const code = location.hash.slice(1);
    setUp("mail.confirm-title", "mail.confirm-help", "mail.confirm-button",
      () => post("/api/mail/confirm", JSON.stringify({ token: code })));
  } else {
    const kind = new URLSearchParams(location.search).get("kind") || "";
    const help = ["turn", "invited", "over", "digest", "all"].includes(kind) ? `mail.unsubscribe-${kind}` : "mail.unsubscribe-all";
    setUp("mail.unsubscribe-title", help, "mail.unsubscribe-button",
      () => post(location.pathname + location.search, "List-Unsubscribe=One-Click"));
  }
}

main();
