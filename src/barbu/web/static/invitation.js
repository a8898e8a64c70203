// The invitation page: before a free seat's name is asked, who invited you, the rules, the pace, the
// turn clock and who already sits at the table (the table's public facts, GET /api/tables/ID); and a
// Join without a name that says so beside the name field instead of doing nothing.
"use strict";

const Invitation = (() => {
  // One seat as the invited person needs to know it: its name and what sits there.
  function seatLine(s, i, mine, held) {
    const label = t("lobby.seat", { n: i + 1 });
    const name = localName(s.name, i);
    const what = i === mine ? t(held ? "invites.your-seat" : "invite.your-seat")
      : s.kind === "bot" && !s.stand_in ? t("table.kind.bot", { level: levelShort(s.level) })
        : !s.claimed ? t(s.access === "friend" ? "invite.free-friend" : "table.kind.free") : t("table.kind.person");
    const who = s.claimed || s.kind === "bot" ? [h("strong", { class: "inv-name" }, name), " — "] : [];
    return h("li", { "data-seat": i, class: i === mine ? "mine" : "" }, `${t("invite.seat-label", { seat: label })} `, ...who, what);
  }

  function rulesLine(m) {
    const per = m.ruleset === "classic" ? t("invite.hands", { n: m.num_hands })
      : t("invite.rounds", { n: m.num_hands, each: m.num_hands / m.players });
    const options = m.options.length ? ` · ${m.options.map(optionName).join(", ")}` : "";
    return [t("invite.rules", { ruleset: t(`ruleset.${m.ruleset}`), n: m.players, hands: per }) + options, " · ",
      t(m.ruleset === "classic" ? "table.highest-wins" : "table.lowest-wins"), " ",
      h("a", { href: `/rules/${m.ruleset}`, target: "_blank" }, t("lobby.read-rules"))];
  }

  function clockLine(m) {
    const c = m.turn_clock;
    return c ? t("lobby.clock-line", { n: c.seconds, level: levelShort(c.level) }) : t("invite.no-clock");
  }

  // ``where``: the name form's box (invite-context), or the box of a seat held for this profile (held-context).
  function render(m, mine, where = "invite-context") {
    const by = m.creator !== null && m.creator !== undefined && m.creator !== mine && m.seats[m.creator].claimed
      ? m.seats[m.creator].name : null;
    const id = (x) => (where === "invite-context" ? `invite-${x}` : `held-${x}`);
    fill($(where),
      h("h2", { id: id("heading") }, by ? t("invite.by", { name: by }) : t("invite.title")),
      h("dl", { class: "invite-facts" },
        h("dt", {}, t("lobby.rules")), h("dd", { id: id("rules") }, rulesLine(m)),
        h("dt", {}, t("lobby.pace")), h("dd", { id: id("pace") }, t(`pace.${m.pace}`)),
        h("dt", {}, t("lobby.clock")), h("dd", { id: id("clock") }, clockLine(m)),
        h("dt", {}, t("invite.seated")),
        h("dd", {}, h("ul", { id: id("seats"), class: "invite-seats" }, m.seats.map((s, i) => seatLine(s, i, mine, where !== "invite-context"))))));
    $(where).hidden = false;
  }

  // A seat held for this browser's profile by name (the table opened without a link, as the lobby's list
  // of invitations opens it): the table's facts, and Accept (the seat taken as the profile, which the
  // request's header proves: no secret in any address) or Decline.
  async function offer(tableId) {
    if (!Friends.profile()) return;
    let held = null;
    try {
      held = (await api("/api/me/invitations")).invitations.find((x) => x.table === tableId);
    } catch (e) {
      return; // offline, or the profile unknown here: the table is watched as before
    }
    if (!held) return;
    try {
      render((await api(`/api/tables/${tableId}`)).table, held.seat, "held-context");
    } catch (e) { /* the answer still works without the context */ }
    $("held-said").textContent = t("invites.held-for-you", { by: held.by });
    $("held-form").hidden = false;
    $("held-accept").onclick = () => answer(tableId, "accept");
    $("held-decline").onclick = () => answer(tableId, "decline");
    $("held-accept").focus();
  }

  async function answer(tableId, said) {
    try {
      const res = await api(`/api/tables/${tableId}/invitation`, { answer: said });
      if (said === "accept") {
        const mine = recall("barbu.mine") || {};
        mine[tableId] = res.token; // in "your tables" at once
        remember("barbu.mine", mine);
        // Opened as the lobby opens a seat of yours: its token in the fragment, which no request carries.
        location.replace(`/table/${tableId}#t=${res.token}`);
        location.reload();
        return;
      }
      $("held-form").hidden = true;
      toast(t("invites.declined"), "info");
    } catch (e) {
      $("held-error").textContent = e.message;
    }
  }

  // Shown with the name form when the server asks a free seat's link for a name (``seat``: the seat).
  async function show(tableId, seat) {
    try {
      const { table } = await api(`/api/tables/${tableId}`);
      render(table, typeof seat === "number" ? seat : null);
    } catch (e) {
      $("invite-context").hidden = true; // the form still works without the context
    }
  }

  // Join pressed with no name: the field is marked, says why, and takes the focus.
  function noName() {
    const field = $("seat-name");
    field.setAttribute("aria-invalid", "true");
    $("seat-said").textContent = t("invite.name-needed");
    field.focus();
  }

  return { show, noName, offer };
})();
