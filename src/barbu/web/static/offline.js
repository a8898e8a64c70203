// The page the service worker (sw.js) shows for a page that needs the network when there is none,
// at that page's address: its language is the page's (?lang=, or the reader's choice).
"use strict";

async function main() {
  await I18N.load();
  document.title = `Barbu: ${t("offline.title")}`;
  document.getElementById("lang-slot").append(I18N.switcher());
  document.getElementById("offline-retry").addEventListener("click", () => location.reload());
}

main();
