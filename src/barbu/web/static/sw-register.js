// Every page registers the site's service worker (/sw.js, scope /: web/http/shell.py), once it has
// loaded: the app can then be installed, and opens without a connection (the score keeper works,
// the other pages say they need it). Without https (other than on localhost) browsers refuse it.
"use strict";

(() => {
  if (!("serviceWorker" in navigator)) return;
  // The catalogue of the page's language, which i18n.js fetched before the worker was there to keep it.
  function catalogue() {
    const tag = document.querySelector("script[data-catalogues]");
    const lang = typeof I18N !== "undefined" ? I18N.lang : "en";
    return `/static/i18n/${lang}.json${tag ? `?v=${tag.dataset.catalogues}` : ""}`;
  }
  // The solo lobby (its tag says data-keep-solo) has what a game needs offline kept as well: opening the
  // lobby once is enough to play without a connection (/solo.json lists the files).
  async function forSolo() {
    if (!document.querySelector("script[data-keep-solo]")) return [];
    try {
      const config = await (await fetch("/solo.json")).json();
      return Array.isArray(config.offline) ? config.offline : [];
    } catch (e) {
      return []; // offline already: what is kept is what there is
    }
  }
  window.addEventListener("load", () => {
    navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => { /* e.g. not https */ });
    // The score keeper's own worker of before (scope /score) steps aside for this one.
    navigator.serviceWorker.getRegistrations()
      .then(all => all.filter(r => new URL(r.scope).pathname !== "/").forEach(r => r.unregister()))
      .catch(() => {});
    navigator.serviceWorker.ready
      .then(async (reg) => reg.active?.postMessage({ keep: [catalogue(), ...await forSolo()] }))
      .catch(() => {});
  });
})();
