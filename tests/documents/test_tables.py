"""Tables that lay a page out are read as blocks; tables of data stay tables."""

from __future__ import annotations

from lxml.html import fromstring

from lightsearch.documents.tables import is_layout, unwrap_layout_tables


def _table(html: str):
    return fromstring(html).find(".//table")


def test_a_page_frame_with_a_menu_table_inside_is_layout_and_becomes_blocks():
    tree = fromstring("<html><body><table><tr><td><table><tr><td><a href='/'>Home</a></td></tr>"
                      "<tr><td><a href='/news'>News</a></td></tr></table></td><td><p>The article.</p></td></tr>"
                      "</table></body></html>")
    assert unwrap_layout_tables(tree) == 2
    for tag in ("table", "tr", "td"):
        assert tree.find(f".//{tag}") is None
    assert tree.find(".//p").text == "The article."


def test_tables_of_data_stay_tables():
    for html in (
        "<table><tr><th>Harbour</th><th>Tide</th></tr><tr><td>Dover</td><td>6.1 m</td></tr></table>",
        "<table summary='tides'><tr><td>Dover</td><td>6.1</td></tr><tr><td>Hull</td><td>7.0</td></tr></table>",
        "<table><caption>Tides</caption><tr><td>Dover</td><td>6.1</td></tr><tr><td>Hull</td><td>7.0</td></tr></table>",
        "<table>" + "<tr><td>a</td><td>b</td><td>c</td><td>d</td></tr>" * 3 + "</table>",  # 12 cells
        "<table>" + "<tr><td>a</td><td>b</td><td>c</td><td>d</td><td>e</td></tr>" * 2 + "</table>",  # 5 columns
    ):
        assert not is_layout(_table(f"<html><body>{html}</body></html>")), html


def test_a_list_of_ten_rows_holding_tables_stays_a_table():
    """A forum's thread: a post a row, each holding its own small tables. Read as blocks,
    its first post was taken for the page."""
    rows = "".join(f"<tr><td><table><tr><td>user{n}</td></tr></table></td><td>post {n}</td></tr>" for n in range(10))
    assert not is_layout(_table(f"<html><body><table>{rows}</table></body></html>"))


def test_what_says_it_is_layout_is_layout():
    for html in ("<table role='presentation'><tr><th>a</th></tr></table>",
                 "<table datatable='0'><tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>",
                 "<table><tr><td>one row</td><td>two cells</td></tr></table>",
                 "<table><tr><td>one column</td></tr><tr><td>two rows</td></tr></table>"):
        assert is_layout(_table(f"<html><body>{html}</body></html>")), html
