// Profiles, "your tables", when each table last moved, and the creator's invitation links.
// The profile's credential ("ID:SECRET") stays in this browser's localStorage and goes with each
// request as the X-Barbu-Player header; the server keeps only a hash of the secret.
"use strict";

const Friends = (() => {
  const KEY = "barbu.profile";

  function profile() { return recall(KEY); }
  // This browser's own random id (localStorage barbu.client), sent as X-Barbu-Client and as a hello's
  // "client": the server seats one browser at most once at a table. It proves nothing; a profile does.
  function clientId() {
    let id = recall("barbu.client");
    if (typeof id !== "string" || !/^[A-Za-z0-9_-]{8,64}$/.test(id)) {
      const bytes = crypto.getRandomValues(new Uint8Array(16));
      id = btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
      remember("barbu.client", id);
    }
    return id;
  }
  function headers() {
    const p = profile();
    const out = { "X-Barbu-Client": clientId() };
    if (p) out["X-Barbu-Player"] = p.credential;
    return out;
  }

  // A guest's seat (its token) tied to this browser's profile: the game is rated and listed for it.
  async function tie(table, token) {
    const res = await fetch(`/api/tables/${table}/tie`, { method: "POST", headers: Object.assign({ "X-Barbu-Token": token }, headers()) });
    const data = await res.json().catch(() => ({}));
    if (!res.ok) throw new Error(data.error ? I18N.error(data.error) : `${res.status} ${res.statusText}`);
    return data;
  }
  function keep(res) { remember(KEY, Object.assign({ credential: res.credential }, res.profile)); }
  function forget() {
    try { localStorage.removeItem(KEY); } catch (e) { /* private mode */ }
  }

  // "2 minutes ago" in the reader's language, from a wall time in seconds: the browser's own words
  // where it has them (Intl), the catalogue's where it has not (Chromium lacks Albanian,
  // Belarusian and Burmese).
  function ago(wall) {
    const secs = Math.max(0, Date.now() / 1000 - wall);
    if (secs < 60) return t("ago.now");
    const [n, unit] = secs < 3600 ? [Math.round(secs / 60), "minute"]
      : secs < 86400 ? [Math.round(secs / 3600), "hour"] : [Math.round(secs / 86400), "day"];
    const locale = I18N.lang === "zh" ? "zh-Hans" : I18N.lang;
    if (!Intl.RelativeTimeFormat.supportedLocalesOf([locale]).length) return t(`ago.${unit}`, { n });
    return new Intl.RelativeTimeFormat(locale, { numeric: "auto" }).format(-n, unit);
  }

  function moved(x) {
    return h("span", { class: "muted moved", title: I18N.date(x.moved, { year: true, seconds: true }) },
      t("lobby.moved", { when: ago(x.moved) }));
  }

  // The seats this browser took (their tokens, kept as they were given) for "your tables".
  function held() {
    return Object.entries(recall("barbu.mine") || {}).slice(-50).map(([table, token]) => ({ table, token }));
  }

  async function yourTables() {
    const box = $("your-tables");
    const seats = held();
    if (!seats.length && !profile()) { box.hidden = true; return; }
    box.hidden = false;
    const list = $("your-list");
    try {
      const { tables } = await api("/api/mine", { seats });
      if (!tables.length) { fill(list, h("p", { class: "muted" }, t("mine.none"))); return; }
      fill(list, h("ul", { class: "mine" }, tables.map((x, i, all) => yourItem(x, alike(all, x)))));
    } catch (e) {
      fill(list, h("p", { class: "muted" }, t("lobby.cannot-list", { why: e.message })));
    }
  }

  function whereText(x) {
    return t("lobby.where", { ruleset: t(`ruleset.${x.ruleset}`), hand: Math.min(x.hand_no + 1, x.num_hands), hands: x.num_hands });
  }

  // Whether another of "your tables" reads the same as x (names, hand, state, start to the minute):
  // then their start times are shown to the second so that they can be told apart.
  function alike(all, x) {
    const key = (y) => [y.names.join("|"), whereText(y), y.state, Math.floor((y.started || 0) / 60)].join("/");
    return all.some((y) => y !== x && key(y) === key(x));
  }

  function yourItem(x, seconds) {
    const where = whereText(x);
    return h("li", { "data-table": x.id, "data-state": x.state },
      h("span", { class: "t-names" }, x.names.flatMap((n, i) => [i ? ", " : "", localName(n), SeatMark.mark((x.holders || [])[i], n)])),
      h("span", { class: "muted" }, ` — ${where}`),
      h("span", { class: `badge state-${x.state}` }, x.state === "damaged" ? t("lobby.damaged") : t(`mine.state.${x.state}`)),
      x.private ? h("span", { class: "badge" }, t("mine.private")) : null,
      moved(x),
      h("span", { class: "t-when" }, origin(x, seconds)),
      h("a", { class: "button primary", href: x.link }, t("mine.open")),
      x.state === "finished" ? h("a", { class: "button replay-link", href: `/replay/${x.id}` }, t("table.replay")) : null,
      // A finished game whose rematch is made: the way to this seat at the new one (its own link).
      x.rematch ? h("a", { class: "button rematch-link", href: x.rematch }, t("mine.rematch")) : null);
  }

  // "started 1 Dec, 19:40", and for a rematch "Rematch of the game of 1 Dec, 19:10" before it:
  // a game and its rematch have the same players, so their times tell them apart.
  function origin(x, seconds) {
    const started = x.started ? t("mine.started", { when: I18N.date(x.started, { time: true, seconds }) }) : "";
    if (!x.rematch_of) return started;
    const of = x.rematch_of.started ? t("mine.rematch-of", { when: I18N.date(x.rematch_of.started, { time: true }) }) : t("rematch.title");
    return [h("span", { class: "badge rematch-of" }, of), " ", started];
  }

  // ------------------------------------------------------------ the profile page

  function showProfile() {
    $("profile").hidden = false;
    const code = new URLSearchParams(location.hash.slice(1)).get("code");
    if (code) {
      history.replaceState(null, "", "/profile");
      claim(code);
      return;
    }
    renderProfile();
  }

  async function claim(code) {
    try {
      keep(await api("/api/players/claim", { code }));
      say(t("profile.claimed"));
    } catch (e) {
      say(e.message, true);
    }
    renderProfile();
  }

  function say(text, bad) {
    const el = $("profile-said");
    el.textContent = text;
    el.className = bad ? "said bad" : "said";
  }

  function form(id, fields, button, onsubmit) {
    const f = h("form", { id, class: "stack", autocomplete: "off" }, fields,
      h("button", { type: "submit", class: "primary" }, button));
    f.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      try { await onsubmit(f); } catch (e) { say(e.message, true); }
    });
    return f;
  }

  function field(id, label, attrs) {
    return h("label", { for: id }, h("span", {}, label), h("input", Object.assign({ id, required: true }, attrs)));
  }

  function renderProfile() {
    const p = profile();
    if (p) signedIn(p);
    else signedOut();
  }

  // No profile here yet: make one, sign in with a password, or use a code from another device.
  function signedOut() {
    fill($("profile-body"),
      h("section", { class: "part" }, h("h2", {}, t("profile.make")), h("p", { class: "help" }, t("profile.make-help")),
        form("make-form", field("make-name", t("lobby.your-name"), { maxlength: 24 }), t("profile.make-button"), async () => {
          keep(await api("/api/players", { name: $("make-name").value }));
          say(t("profile.made"));
          renderProfile();
        })),
      h("section", { class: "part" }, h("h2", {}, t("profile.signin")),
        form("signin-form", [field("signin-name", t("lobby.your-name"), { maxlength: 24, autocomplete: "username" }),
          field("signin-password", t("profile.password"), { type: "password", autocomplete: "current-password" })],
        t("profile.signin-button"), async () => {
          keep(await api("/api/signin", { name: $("signin-name").value, password: $("signin-password").value }));
          say(t("profile.signed-in"));
          renderProfile();
        })),
      h("section", { class: "part" }, h("h2", {}, t("profile.have-code")),
        form("code-form", field("code-input", t("profile.code"), { maxlength: 40, spellcheck: "false" }),
          t("profile.use-code"), async () => claim($("code-input").value.trim()))),
      ratedPart());
  }

  // What a rating counts, said where a profile is made and kept.
  function ratedPart() {
    return h("section", { class: "part", id: "rated-part" }, h("h2", {}, t("profile.rated-title")),
      h("p", { class: "help" }, t("profile.rated-help")));
  }

  // The guest seats this browser holds in games being played, each with a button that ties it to the profile.
  async function guestSeats(p) {
    const box = $("guest-seats");
    try {
      const { tables } = await api("/api/mine", { seats: held() });
      const guest = tables.filter((x) => (x.holders || [])[x.seat] === "guest" && !x.over && !x.damaged);
      if (!guest.length) { fill(box, h("p", { class: "help" }, t("profile.guest-none"))); return; }
      fill(box, h("ul", { class: "mine" }, guest.map((x) => h("li", { "data-table": x.id },
        h("span", { class: "t-names" }, x.names.map((n) => localName(n)).join(", ")), " ",
        h("button", { type: "button", class: "tie", onclick: async (ev) => {
          ev.target.disabled = true;
          try {
            await tie(x.id, x.token);
            say(t("profile.tied", { name: p.name }));
            guestSeats(p);
          } catch (e) { say(e.message, true); ev.target.disabled = false; }
        } }, t("profile.tie", { name: p.name }))))));
    } catch (e) {
      fill(box, h("p", { class: "help" }, t("lobby.cannot-list", { why: e.message })));
    }
  }

  // The profile this browser holds: carry it elsewhere, give it a password, or forget it here.
  function signedIn(p) {
    fill($("profile-body"),
      h("section", { class: "part" }, h("h2", { id: "profile-name" }, p.name),
        h("p", { class: "help" }, t("profile.kept-here")),
        h("a", { class: "button", href: "/" }, t("profile.to-lobby")), " ",
        h("a", { class: "button", id: "ratings-link", href: `/player/${encodeURIComponent(p.name)}` }, t("profile.ratings"))),
      ratedPart(),
      OwnPace.profilePart(),
      Notify.profilePart(),
      Mail.profilePart(),
      h("section", { class: "part", id: "guest-part" }, h("h2", {}, t("profile.guest-title")),
        h("p", { class: "help" }, t("profile.guest-help")), h("div", { id: "guest-seats", "aria-live": "polite" })),
      h("section", { class: "part" }, h("h2", {}, t("profile.carry")), h("p", { class: "help" }, t("profile.carry-help")),
        h("button", { type: "button", id: "transfer-button", onclick: transfer }, t("profile.show-code")),
        h("div", { id: "transfer-box", "aria-live": "polite" })),
      h("section", { class: "part", "aria-labelledby": "devices-title" }, h("h2", { id: "devices-title" }, t("profile.devices")),
        h("p", { class: "help" }, t("profile.devices-help")),
        h("div", { id: "device-list", "aria-live": "polite" }, h("p", { class: "muted" }, t("profile.devices-loading"))),
        h("button", { type: "button", id: "others-button", onclick: signOutOthers }, t("profile.sign-out-others"))),
      h("section", { class: "part" }, h("h2", {}, t("profile.password-title")),
        h("p", { class: "help" }, t(p.password ? "profile.password-set" : "profile.password-help")),
        h("p", { class: "help" }, t("profile.password-signs-out")),
        form("password-form", [
          p.password ? field("current-password", t("profile.current-password"),
            { type: "password", maxlength: 128, autocomplete: "current-password" }) : null,
          field("new-password", t("profile.new-password"),
            { type: "password", minlength: 8, maxlength: 128, autocomplete: "new-password" })],
        t("profile.password-button"), async () => {
          const body = { password: $("new-password").value };
          if (p.password) body.current = $("current-password").value;
          const res = await api("/api/me/password", body);
          keep({ credential: p.credential, profile: res.profile });
          say(t("profile.password-saved"));
          renderProfile();
        })),
      h("section", { class: "part" }, h("h2", {}, t("profile.forget-title")), h("p", { class: "help" }, t("profile.forget-help")),
        h("button", { type: "button", id: "forget-button", onclick: () => { forget(); say(t("profile.forgotten")); renderProfile(); } },
          t("profile.forget"))));
    guestSeats(p);
    devices();
  }

  // The devices that hold this profile: how each came, when it was made and last seen; any other
  // one can be signed out (this one is forgotten below instead).
  async function devices() {
    const box = $("device-list");
    try {
      showDevices((await api("/api/me/devices")).devices);
    } catch (e) {
      if (box) fill(box, h("p", { class: "muted" }, e.message));
    }
  }

  function showDevices(list) {
    const box = $("device-list");
    if (!box) return;
    fill(box, h("ul", { class: "devices" }, list.map((d) => h("li", { "data-device": d.id, "data-how": d.how },
      h("span", { class: "d-how" }, t(`profile.how-${d.how}`)),
      d.this ? h("span", { class: "badge this-device" }, t("profile.this-device")) : null,
      h("span", { class: "muted d-when" }, t("profile.device-made", { when: I18N.date(d.made, { time: true }) }),
        " · ", t("profile.device-seen", { when: ago(d.seen) })),
      d.this ? null : h("button", { type: "button", class: "revoke", onclick: () => revoke(d.id) }, t("profile.sign-out"))))));
    $("others-button").hidden = list.length < 2;
  }

  async function drop(path) {
    const res = await fetch(path, { method: "DELETE", headers: headers() });
    const data = res.status === 204 ? {} : await res.json().catch(() => ({}));
    if (!res.ok) throw new Error(data.error ? I18N.error(data.error) : `${res.status} ${res.statusText}`);
    return data;
  }

  async function revoke(id) {
    try {
      await drop(`/api/me/devices/${encodeURIComponent(id)}`);
      say(t("profile.signed-out"));
      await devices();
    } catch (e) {
      say(e.message, true);
    }
  }

  async function signOutOthers() {
    try {
      showDevices((await drop("/api/me/devices/others")).devices);
      say(t("profile.signed-out-others"));
    } catch (e) {
      say(e.message, true);
    }
  }

  async function transfer() {
    try {
      const res = await api("/api/me/transfer", {});
      const link = new URL(res.link, location.href).href;
      const field = h("input", { id: "transfer-link", class: "link", value: link, readonly: true, onclick: (e) => e.target.select() });
      fill($("transfer-box"),
        h("p", {}, t("profile.code-is"), " ", h("code", { id: "transfer-code" }, res.code)),
        h("label", { for: "transfer-link" }, t("profile.or-link")), field, Copy.button(link, field),
        h("p", { class: "help" }, t("profile.code-lasts", { n: Math.round(res.seconds / 60) })));
    } catch (e) {
      say(e.message, true);
    }
  }

  // ------------------------------------------------------------ the creator's invitations

  // The links of the free seats, who took the others, and a new link for a seat (the old one lapses).
  function inviteItems(invites, ctx) {
    return h("ul", { class: "invites" }, invites.seats.map((s) => {
      const label = t("lobby.seat", { n: s.seat + 1 });
      const kind = h("span", { class: "badge" }, t(`seat-kind.${s.access}`));
      if (s.claimed) return h("li", { "data-seat": s.seat }, t("lobby.seat-taken", { n: s.seat + 1, name: s.name }), kind);
      const full = new URL(s.link, location.href).href;
      const field = h("input", { class: "link", value: full, readonly: true, "aria-label": label, onclick: (e) => e.target.select() });
      return h("li", { "data-seat": s.seat }, `${label}: `, kind, field, Copy.button(full, field),
        h("button", { type: "button", class: "reissue", onclick: () => send({ type: "reissue", seat: s.seat }) }, t("invite.reissue")),
        ctx ? byName(s, ctx) : null);
    }));
  }

  // A free seat held for a profile by name (and the way to withdraw that), or the field to invite one.
  function byName(s, ctx) {
    const said = h("p", { class: "form-said", role: "status" });
    async function call(method, body) {
      const res = await fetch(`/api/tables/${ctx.id}/invite`, { method,
        headers: Object.assign({ "Content-Type": "application/json", "X-Barbu-Token": ctx.token }, headers()),
        body: JSON.stringify(body) });
      const data = await res.json().catch(() => ({}));
      if (!res.ok) throw new Error(data.error ? I18N.error(data.error) : `${res.status} ${res.statusText}`);
      return data;
    }
    if (s.invited) {
      return h("div", { class: "by-name" }, h("span", { class: "badge held" }, t("invite.held", { name: s.invited })),
        h("button", { type: "button", class: "withdraw", "aria-label": t("invite.withdraw-label", { name: s.invited }),
          onclick: () => call("DELETE", { seat: s.seat }).catch((e) => { said.textContent = e.message; }) }, t("invite.withdraw")), said);
    }
    const id = `invite-name-${s.seat}`;
    const field = h("input", { id, class: "invite-name", maxlength: "24", autocomplete: "off" });
    const form = h("form", { class: "by-name", novalidate: "" },
      s.declined ? h("span", { class: "badge declined" }, t("invite.declined")) : null,
      h("label", { for: id }, `${t("invite.by-name")} (${t("lobby.seat", { n: s.seat + 1 })})`), field,
      h("button", { type: "submit" }, t("invite.send")), said);
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      try {
        const res = await call("POST", { seat: s.seat, name: field.value.trim() });
        said.textContent = t("invite.sent", { name: res.invited });
      } catch (e) {
        said.textContent = e.message;
        field.focus();
      }
    });
    return form;
  }

  return { profile, clientId, headers, tie, forget, ago, moved, yourTables, showProfile, inviteItems };
})();
