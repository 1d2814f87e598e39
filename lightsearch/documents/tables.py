"""Tables that lay a page out, read as the blocks they hold.

Old pages (and some mail archives and forums) put the whole page in a table: the masthead
in one row, the navigation in a cell or a nested one-column table, the article in another
cell. trafilatura keeps tables as tables, so such a page came out as pipe-separated rows
("| Home | News | Sport |") with the article glued into one cell of them. A table that lays
the page out is turned into plain blocks before the main text is chosen, so the article
cell competes as a block and the navigation cells fall away as link lists; a table of data
stays a table.

The test is Readability.js's (``_markDataTables``), which browsers' reader views use: a
table is data when it says so (a summary, a caption, header cells, column groups, a head
or foot: its own, not those of a data table inside it) or is large (more than four
columns, more than ten cells); it lays out the page when it says so
(``role=presentation``, ``datatable=0``), holds another table, or has one row or one
column. Without a verdict either way, it is layout. One change: a table of ten rows or
more stays a table even when it holds others, as Readability.js would take it for data
had it none: such a table lists records (a forum thread's posts, one per row), and read as
blocks its first record was taken for the whole page.
"""

from __future__ import annotations

from lxml.html import HtmlElement

_DATA_PARTS = ("caption", "col", "colgroup", "tfoot", "thead", "th")
_SECTIONS = ("thead", "tbody", "tfoot")
MIN_DATA_ROWS = 10
MAX_LAYOUT_COLUMNS = 4
MAX_LAYOUT_CELLS = 10


def _rows(table: HtmlElement) -> list[HtmlElement]:
    """The table's own rows (in its sections too), not those of tables inside it."""
    rows = []
    for child in table:
        if child.tag == "tr":
            rows.append(child)
        elif child.tag in _SECTIONS:
            rows.extend(row for row in child if row.tag == "tr")
    return rows


def _span(cell: HtmlElement) -> int:
    try:
        return max(1, min(int(cell.get("colspan") or 1), 100))
    except ValueError:
        return 1


def is_layout(table: HtmlElement) -> bool:
    """Whether ``table`` lays the page out rather than holding data (see the module)."""
    if table.get("role") == "presentation" or table.get("datatable") == "0":
        return True
    if table.get("summary"):
        return False
    for part in table.iter(*_DATA_PARTS):  # its own, not those of a data table it lays out
        if (part.tag != "caption" or len(part) or (part.text or "").strip()) and \
                next(part.iterancestors("table"), None) is table:
            return False
    rows = _rows(table)
    if len(rows) >= MIN_DATA_ROWS:
        return False  # a list of rows (a forum's posts, a table of data), not a page's frame
    if next(table.iterdescendants("table"), None) is not None:
        return True
    columns = max((sum(_span(cell) for cell in row if cell.tag in ("td", "th")) for row in rows), default=0)
    if len(rows) <= 1 or columns <= 1:
        return True
    if columns > MAX_LAYOUT_COLUMNS:
        return False
    return len(rows) * columns <= MAX_LAYOUT_CELLS


def unwrap_layout_tables(tree: HtmlElement) -> int:
    """Turn every layout table of ``tree`` (with its sections, rows and cells) into
    ``<div>`` blocks, in place; how many there were."""
    tables = [table for table in tree.iter("table") if is_layout(table)]  # judged before any changes
    for table in tables:
        for row in _rows(table):
            for cell in row:
                if cell.tag in ("td", "th"):
                    cell.tag = "div"
            row.tag = "div"
        for child in table:
            if child.tag in _SECTIONS:
                child.tag = "div"
        table.tag = "div"
    return len(tables)
