// The score keeper's service worker (scope /score, registered by score.js only): a sheet reloaded
// without a connection still opens. Its page, scripts, styles and catalogues are fetched from the
// network when it answers, and kept; when it does not, the kept copies are served. The sheet itself
// comes from the page's localStorage, and the API is never answered from here.
"use strict";

const CACHE = "barbu-score-keeper-v1";
const PAGE = "/score";  // the same page for /score and every /score/<id>
const FILES = [PAGE, "/static/style.css", "/static/score.css", "/static/i18n.js", "/static/sheetview.js",
               "/static/scorecheck.js", "/static/score.js", "/static/i18n/en.json"];
const KEPT = /^\/static\/(?:[\w-]+\.(?:js|css)|i18n\/[a-z]{2}\.json)$/;  // what this worker may keep

self.addEventListener("install", event => {
  event.waitUntil(caches.open(CACHE).then(cache => cache.addAll(FILES)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", event => {
  event.waitUntil(caches.keys()
    .then(names => Promise.all(names.filter(n => n.startsWith("barbu-score-keeper-") && n !== CACHE)
      .map(n => caches.delete(n))))
    .then(() => self.clients.claim()));
});

// The page asks to keep its reader's catalogue too (any language the keeper was opened in).
self.addEventListener("message", event => {
  const urls = (event.data && Array.isArray(event.data.keep) ? event.data.keep : [])
    .filter(u => typeof u === "string" && KEPT.test(u));
  if (urls.length) event.waitUntil(caches.open(CACHE).then(cache => cache.addAll(urls)).catch(() => {}));
});

async function fresh(request, fallback) {
  const cache = await caches.open(CACHE);
  try {
    const res = await fetch(request);
    if (res.ok) await cache.put(fallback, res.clone());
    return res;
  } catch (err) {
    const kept = await cache.match(fallback, { ignoreSearch: true });
    if (kept) return kept;
    throw err;
  }
}

self.addEventListener("fetch", event => {
  const req = event.request;
  const url = new URL(req.url);
  if (req.method !== "GET" || url.origin !== self.location.origin) return;
  if (req.mode === "navigate" && (url.pathname === PAGE || url.pathname.startsWith(`${PAGE}/`))) {
    event.respondWith(fresh(req, PAGE));
  } else if (KEPT.test(url.pathname)) {
    event.respondWith(fresh(req, url.pathname));
  }
});
