"""The notices' mails, in the reader's language: a plain-text part and a simple, accessible HTML part."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from html import escape
from urllib.parse import urlencode

from barbu.web.core.words import Words, words

KINDS = ("turn", "invited", "over", "digest")  # the kinds of mail a person may ask for, each on its own
ALL = "all"  # an unsubscribe link's kind that removes the address (the confirmation mail's)


@dataclass
class Mail:
    """What one mail says: its subject, its paragraphs, a link to act on, a list of lines (a digest's
    tables, a game's places), each line with its own link or none."""

    kind: str
    subject: str
    paragraphs: list[str]
    action: tuple[str, str] | None = None  # (label, absolute URL)
    lines: list[tuple[str, str | None]] = field(default_factory=list)  # (text, absolute URL or None)


def unsubscribe_url(base: str, token: str, kind: str) -> str:
    """The one-click link of a mail (RFC 8058): it can only turn this kind of mail off (the token is the
    address's unsubscribe token, never a profile's secret)."""
    return f"{base}/mail/unsubscribe?{urlencode({'kind': kind, 'token': token})}"


def message(mail: Mail, lang: str, to: str, base: str, unsubscribe: str) -> EmailMessage:
    """The mail as sent: headers (List-Unsubscribe and its one-click POST), the text part, the HTML part."""
    w = words(lang)
    msg = EmailMessage()
    msg["To"] = to
    msg["Subject"] = mail.subject
    msg["Date"] = format_datetime(datetime.now(UTC))
    msg["Message-ID"] = make_msgid(domain=base.split("://", 1)[-1].split("/", 1)[0].split(":", 1)[0])
    msg["List-Unsubscribe"] = f"<{unsubscribe}>"
    msg["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    msg["Auto-Submitted"] = "auto-generated"  # no holiday auto-replies to the site
    msg.set_content(plain(mail, w, unsubscribe))
    msg.add_alternative(rich(mail, w, lang, unsubscribe), subtype="html")
    msg["Content-Language"] = lang  # after the parts: setting a part's content drops its Content-* headers
    return msg


def footer_key(kind: str) -> str:
    return "mail.footer-confirm" if kind == "confirm" else "mail.footer"


def plain(mail: Mail, w: Words, unsubscribe: str) -> str:
    out = [*mail.paragraphs, ""]
    out += [f"- {text}" + (f"\n  {url}" if url else "") for text, url in mail.lines]
    if mail.action is not None:
        out += ["", f"{mail.action[0]}: {mail.action[1]}"]
    out += ["", "-- ", w.t(footer_key(mail.kind)), f"{w.t('mail.unsubscribe')}: {unsubscribe}"]
    return "\n".join(out).replace("\n\n\n", "\n\n") + "\n"


STYLE = ("font-family:system-ui,-apple-system,'Segoe UI',Roboto,'Noto Sans','Noto Sans Myanmar',"
         "'Noto Sans CJK SC',sans-serif;font-size:16px;line-height:1.6;color:#1b1b1b")
BUTTON = ("display:inline-block;background:#0f5132;color:#ffffff;padding:12px 20px;border-radius:6px;"
          "text-decoration:underline;font-weight:bold")


def rich(mail: Mail, w: Words, lang: str, unsubscribe: str) -> str:
    """The HTML part: one column, at most 600 px wide, every text escaped (names are people's input)."""
    e = escape
    body = [f'<h1 style="font-size:22px;margin:0 0 16px">{e(mail.subject)}</h1>']
    body += [f'<p style="margin:0 0 12px">{e(p)}</p>' for p in mail.paragraphs]
    if mail.lines:
        items = "".join(f'<li style="margin:0 0 8px">{_line(text, url)}</li>' for text, url in mail.lines)
        body.append(f'<ul style="padding-left:20px;margin:0 0 16px">{items}</ul>')
    if mail.action is not None:
        body.append(f'<p style="margin:20px 0"><a href="{e(mail.action[1])}" style="{BUTTON}">'
                    f'{e(mail.action[0])}</a></p>')
    foot = (f'<p style="margin:24px 0 0;font-size:14px;color:#4a4a4a;border-top:1px solid #cccccc;'
            f'padding-top:12px">{e(w.t(footer_key(mail.kind)))} '
            f'<a href="{e(unsubscribe)}" style="color:#0f5132">{e(w.t("mail.unsubscribe"))}</a></p>')
    return (f'<!doctype html>\n<html lang="{e(lang)}"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width,initial-scale=1">'
            f'<title>{e(mail.subject)}</title>'
            f'</head><body style="margin:0;padding:16px;background:#f4f4f0">'
            f'<main style="max-width:600px;margin:0 auto;background:#ffffff;padding:24px;border-radius:8px;'
            f'{STYLE}">{"".join(body)}{foot}</main></body></html>\n')


def _line(text: str, url: str | None) -> str:
    if url is None:
        return escape(text)
    return f'<a href="{escape(url)}" style="color:#0f5132">{escape(text)}</a>'
