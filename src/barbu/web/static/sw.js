// Barbu's service worker, served as /sw.js (scope /) and registered by sw-register.js on every page.
// The server (web/http/shell.py) writes the two lines below: the release's version and its app shell,
// the stamped addresses of the pages' files, the offline page and the score keeper's page.
// - Pages: from the network; without it, the score keeper's kept page (its sheet is in the page's
//   own storage, its writes queue there) and for any other page the offline page, in its language.
// - Stamped static files (/static/…?v=): from the cache, else from the network and kept; a stamped
//   address never changes content, and a static file is the same for everyone.
// - A static build (barbu static) keeps more in its shell: its pages, Pyodide and the engine's zip,
//   which never change at their addresses (from the cache), and the few files the solo game reads
//   (from the network, else the cache).
// - Nothing else is answered or kept here: not the API, not the sockets, nothing with a person's data.
"use strict";

const VERSION = "dev";
const SHELL = [];
const CACHE = `barbu-shell-${VERSION}`;
const OURS = /^barbu-/;  // every cache this site's workers made (barbu-score-keeper-v1 before this one)
const OFFLINE = "/offline";
const KEEPER = "/score";
const STATIC = /^\/static\/[\w./-]+$/;
const IMMUTABLE = /^\/(?:pyodide\/[\w.-]+\/[\w.-]+|solo\/barbu-[0-9a-f]+\.zip)$/;  // Pyodide, the engine

self.addEventListener("install", event => {
  event.waitUntil(caches.open(CACHE).then(cache => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

// A new version's cache replaces the others; the open pages are taken over at once.
self.addEventListener("activate", event => {
  event.waitUntil(caches.keys()
    .then(names => Promise.all(names.filter(n => OURS.test(n) && n !== CACHE).map(n => caches.delete(n))))
    .then(() => self.clients.claim()));
});

function stamped(url) {
  return url.origin === self.location.origin && STATIC.test(url.pathname) && url.searchParams.has("v");
}

// A page asks to keep the files it fetched before this worker controlled it (its reader's catalogue), or
// will need offline (the solo lobby: Pyodide, the engine, the card faces). Only files that never change
// at their address: a stamped one, Pyodide's, the engine's.
self.addEventListener("message", event => {
  const asked = event.data && Array.isArray(event.data.keep) ? event.data.keep.slice(0, 64) : [];
  const lasting = u => stamped(u) || (u.origin === self.location.origin && IMMUTABLE.test(u.pathname));
  const urls = asked.filter(u => typeof u === "string").map(u => new URL(u, self.location.origin))
    .filter(lasting).map(u => u.href);
  if (urls.length) event.waitUntil(keepMissing(urls).catch(() => {}));
});

// Only what is not kept yet is fetched (a lobby's visit must not fetch Pyodide's 13 MB again).
async function keepMissing(urls) {
  const cache = await caches.open(CACHE);
  const missing = [];
  for (const url of urls) if (!(await cache.match(url))) missing.push(url);
  if (missing.length) await cache.addAll(missing);
}

async function page(request, keeper) {
  const cache = await caches.open(CACHE);
  try {
    const res = await fetch(request);
    if (keeper && res.ok) await cache.put(KEEPER, res.clone());  // the same page for every /score/<id>
    return res;
  } catch (err) {
    // A page of the shell answers itself (a static build's: "/play/", "/rules/classic/").
    const path = new URL(request.url).pathname;
    const itself = await cache.match(path) || await cache.match(`${path}/`);
    const kept = itself || (keeper && await cache.match(KEEPER)) || await cache.match(OFFLINE)
      || await cache.match(`${OFFLINE}/`);
    return kept || Response.error();
  }
}

// A file of the shell that is not stamped: the network's when it answers, else the kept one.
async function fresh(request) {
  const cache = await caches.open(CACHE);
  try {
    return await fetch(request);
  } catch (err) {
    return (await cache.match(request, { ignoreSearch: true })) || Response.error();
  }
}

async function file(request) {
  const cache = await caches.open(CACHE);
  const kept = await cache.match(request);
  if (kept) return kept;
  const res = await fetch(request);
  if (res.ok) await cache.put(request, res.clone());
  return res;
}

self.addEventListener("fetch", event => {
  const req = event.request;
  const url = new URL(req.url);
  if (req.method !== "GET" || url.origin !== self.location.origin) return;
  if (req.mode === "navigate" && !/^\/(?:api|ws|static)\//.test(url.pathname)) {
    event.respondWith(page(req, url.pathname === KEEPER || url.pathname.startsWith(`${KEEPER}/`)));
  } else if (stamped(url) || IMMUTABLE.test(url.pathname)) {
    event.respondWith(file(req));
  } else if (SHELL.includes(url.pathname)) {
    event.respondWith(fresh(req));
  }
});

// Notifications (Web Push): what the server pushed is shown; a click opens the table's page, or brings
// forward the window already showing it. Nothing is kept in the cache.
function pushed(event) {
  try { return event.data ? event.data.json() : {}; } catch (err) { return {}; }
}

function ours(path) {
  return typeof path === "string" && /^\/(?!\/)/.test(path) ? path : "/";
}

self.addEventListener("push", event => {
  const said = pushed(event);
  const url = ours(said.url);
  event.waitUntil(self.registration.showNotification(typeof said.title === "string" ? said.title : "Barbu", {
    body: typeof said.body === "string" ? said.body : "", tag: url, data: { url },
    icon: "/static/icons/icon-192.png",
  }));
});

self.addEventListener("notificationclick", event => {
  event.notification.close();
  const url = new URL(ours(event.notification.data && event.notification.data.url), self.location.origin).href;
  event.waitUntil(self.clients.matchAll({ type: "window", includeUncontrolled: true }).then(open => {
    const there = open.find(c => c.url.split("#")[0] === url);
    return there ? there.focus() : self.clients.openWindow(url);
  }));
});
