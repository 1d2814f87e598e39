"""Known boilerplate lines: the words sites put around an article in many languages.

A cleaning step may remove a line for what it says only when the line is short and is one
of these: a read-on label ("Read more:", "Lea también:", "Czytaj też"), a label or control
("Advertisement", "Share", "5 min read"), an appeal to subscribe, follow, comment or
donate, or a dateline (day, month, year and time words and nothing else). Everything here
is a whole-line (or line-start) test; a sentence of the article that merely mentions a
newsletter is longer than these lines and is never matched. English, German, French,
Spanish, Portuguese, Italian, Dutch, Polish, Scandinavian, Finnish, Russian, Arabic,
Hebrew and Thai forms.
"""

from __future__ import annotations

import re

# A line (or an element's text) that starts like this (after any punctuation) is a pointer
# to another page. The leading punctuation is skipped once, before the words are tried:
# as "^\W*" in front of each alternative it cost 13 us a text on whitespace runs.
_READ_ON_WORDS = re.compile(
    r"(?:read|see|watch|listen)\s+(?:more|also|next)\b|continue\s+reading\b|also\s+read\b|"
    r"related(?:\s+(?:articles?|stories|coverage|content|posts?))?\b|more\s*:|"
    r"more\s+(?:from|on|must-reads)\b|you\s+(?:may|might)\s+also\s+(?:like|be interested)\b|"
    r"(?:lea|lee|vea|ver|leia|veja|lisez|lire|leggi|vedi|lees|zie|czytaj|zobacz|przeczytaj|läs|les|læs|lue)"
    r"\s+(?:también|tambien|más|mas|também|mais|aussi|anche|ook|meer|też|także|więcej|också|mer|også|mere|myös)\b|"
    r"(?:à|a)\s+lire\s+aussi\b|sur\s+le\s+même\s+sujet\b|(?:noticias|artículos)\s+relacionad[oa]s\b|"
    r"(?:te|le)\s+puede\s+interesar\b|saiba\s+mais\b|potrebbe\s+interessarti\b|"
    r"lesen\s+sie\s+(?:auch|mehr)\b|auch\s+lesen\b|mehr\s+zum\s+thema\b|weiterlesen\b|"
    r"schon\s+gelesen\b|siehe\s+auch\b|das\s+(?:könnte|dürfte)\s+(?:sie|dich)\s+auch\s+interessieren\b|"
    r"(?:auch|ebenfalls)\s+interessant\b|(?:mehr|weitere)\s+(?:themen|artikel|beiträge|nachrichten)\b|"
    r"mehr\s+(?:aus|von)\s+(?:dem|der|unserem|unserer)\b|notas\s+relacionadas\b|más\s+sobre\b|"
    r"(?:mira|mire|puedes\s+ver|lee\s+también|ver\s+más)\s*:|artigos\s+relacionados\b|"
    r"articles?\s+(?:liés|similaires)\b|(?:articoli|notizie)\s+correlat[ie]\b|powiązane\b|"
    r"(?:читайте|смотрите)\s+также\b|اقرأ\s+أيضا|"
    r"(?:קראו|קרא|ראו)\s+(?:עוד|גם)|לכתבה\s+המלאה|(?:כתבות\s+נוספות|עוד\s+בנושא)|เรื่องที่เกี่ยวข้อง",
    re.IGNORECASE,
)
_LEADING = re.compile(r"\W*")


def read_on(text: str) -> bool:
    """Whether ``text`` starts like a read-on link ("Read more:", "Lea también")."""
    return bool(_READ_ON_WORDS.match(text, _LEADING.match(text).end()))


READ_ON_LABEL_CHARS = 40  # "À lire aussi", "Schon gelesen?": a label of its own, the links follow

# Labels and controls: the whole line, case-folded.
LABELS = frozenset({
    "advertisement", "anzeige", "werbung", "publicidad", "publicité", "pubblicità", "reklama", "advertentie",
    "share", "teilen", "partager", "compartir", "condividi", "compartilhar", "udostępnij", "print", "drucken",
    "imprimer", "imprimir", "listen", "listen to this article", "artikel anhören", "skip to content",
    "zum inhalt springen", "aller au contenu", "ir al contenido", "close", "schließen", "fermer", "cerrar",
    "no comments", "keine kommentare", "view comments", "show comments", "kommentare anzeigen", "comments",
    "kommentare", "commentaires", "comentarios", "komentarze", "leave a comment", "leave a reply",
    "kommentar schreiben", "schreibe einen kommentar", "laisser un commentaire", "deja un comentario",
})
_READING_TIME = re.compile(
    r"^(?:(?:reading time|lesezeit|lesedauer|temps de lecture|tiempo de lectura)\s*:?\s*)?(?:ca\.\s*)?\d{1,3}\s*"
    r"(?:min(?:ute)?s?|minuten|mn)\.?(?:\s+(?:read|lesezeit|lesedauer|de lecture|de lectura|di lettura))?$")
_COUNT = re.compile(r"^\d+\s+(?:comments?|kommentare?|commentaires?|comentarios?|komentarz[ey]?)$")

# Appeals: subscribe, sign up, follow, download the app, tell us, donate. A line that
# starts with one of these and is short (``APPEAL_LINE_CHARS``) is the site talking.
APPEAL_LINE = re.compile(
    r"^\W*(?:subscribe|sign\s+up|never\s+miss|follow\s+(?:us|the\s+\w+|@)|download\s+(?:the|our)|"
    r"join\s+(?:us|our)|get\s+(?:our|the)\s+newsletter|we\s+want\s+to\s+hear|to\s+view\s+the\s+full\s+story|"
    r"for\s+the\s+latest\s+(?:stories|news)|support\s+(?:us|our|independent)|donate|become\s+a\s+(?:member|patron|subscriber)|"
    r"(?:jetzt\s+)?abonnieren|zum\s+newsletter|newsletter\s+(?:abonnieren|bestellen)|folgen\s+sie\s+uns|folge\s+uns|"
    r"jetzt\s+(?:spenden|unterstützen)|abonnez-vous|suivez-nous|inscrivez-vous|pour\s+lire\s+la\s+suite|"
    r"pour\s+accéder\s+en\s+illimité|suscríbete|síguenos|suscribirse|assine|siga-nos|iscriviti|seguici|"
    r"abbonati|obserwuj\s+nas|zapisz\s+się|subskrybuj|הירשמו|עקבו\s+אחרינו)",
    re.IGNORECASE,
)
APPEAL_LINE_CHARS = 200

# A dateline: day, month, year and time tokens and a few words around them ("Published",
# "Updated", "am", "le"), nothing else.
_MONTH = (r"jan|feb|m[aä]r|apr|ma[iy]|jun|jul|aug|sep|o[ck]t|nov|de[cz]|janv|févr|fev|avr|juil|ao[uû]t|d[ée]c|"
          r"ene|abr|ago|dic|gen|mag|giu|lug|ott|set|out|mei|maart|sty|lut|kwi|cze|lip|sie|wrz|paź|lis|gru")
_DAY = (r"mon|tue|wed|thu|fri|sat|sun|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag|lundi|mardi|"
        r"mercredi|jeudi|vendredi|samedi|dimanche|lunes|martes|mi[ée]rcoles|jueves|viernes|s[áa]bado|domingo|"
        r"segunda|terça|quarta|quinta|sexta|feira")
_DATE_WORDS = (r"published|updated|posted|last|modified|on|at|am|um|le|el|de|del|of|the|veröffentlicht|aktualisiert|"
               r"stand|publié|mis|à|jour|publicado|actualizado|atualizado|às|pubblicato|aggiornato|uhr|h|gmt|utc|"
               r"cet|cest|est|edt|pst|pdt|bst|am\.?|pm\.?|a\.m\.|p\.m\.|und|and|et|y|e")
_DATE_TOKEN = re.compile(rf"^(?:\d{{1,4}}(?:[./:\-]\d{{1,4}}){{0,3}}(?:st|nd|rd|th|er|º|\.)?|\d{{1,2}}h\d{{0,2}}|"
                         rf"(?:{_MONTH})\w*\.?|(?:{_DAY})\w*\.?|(?:{_DATE_WORDS}))$", re.IGNORECASE)
HAS_DATE = re.compile(r"\b(?:19|20)\d{2}\b|\b\d{1,2}[./-]\d{1,2}[./-]\d{2,4}\b")
MAX_DATELINE_TOKENS = 12


_DATELINE_TOKEN = re.compile(r"[^\s,|·•–—/()]+")


def dateline(line: str) -> bool:
    """Whether ``line`` is only a date (and time), with at most a few words of its kind.
    (Its tokens are read only as far as the most a dateline has: the lines tested are
    paragraphs.)"""
    tokens = []
    for match in _DATELINE_TOKEN.finditer(line):
        token = match.group()
        if token not in ("-", ":"):
            tokens.append(token)
            if len(tokens) > MAX_DATELINE_TOKENS:
                return False
    return (bool(tokens) and bool(HAS_DATE.search(line))
            and all(_DATE_TOKEN.match(t.rstrip(":")) for t in tokens))


def label(folded: str) -> bool:
    """Whether the case-folded, whitespace-normalised ``folded`` is a known label line."""
    return (folded.rstrip(":") in LABELS or bool(_READING_TIME.match(folded)) or bool(_COUNT.match(folded))
            or (len(folded) <= READ_ON_LABEL_CHARS and read_on(folded)))


def appeal(line: str) -> bool:
    return len(line) <= APPEAL_LINE_CHARS and bool(APPEAL_LINE.match(line))
