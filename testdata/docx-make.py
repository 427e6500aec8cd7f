#!/usr/bin/env python3
"""Builds the Word fixtures in testdata/formats/docx/ for kapi's docx format tests.

Run from the repository root:  pip install python-docx && python3 testdata/docx-make.py
The generated .docx files are committed; rerunning changes their zip timestamps only.
"""

import os

import docx
from docx.enum.text import WD_BREAK
from docx.oxml import parse_xml
from docx.oxml.ns import nsdecls, qn
from docx.shared import Pt

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "formats", "docx")


def hyperlink(paragraph, url, text, bold=False):
    """Appends a w:hyperlink with one run styled Hyperlink."""
    r_id = paragraph.part.relate_to(
        url, docx.opc.constants.RELATIONSHIP_TYPE.HYPERLINK, is_external=True
    )
    rpr = '<w:rStyle w:val="Hyperlink"/>' + ("<w:b/>" if bold else "")
    xml = (
        f'<w:hyperlink {nsdecls("w", "r")} r:id="{r_id}">'
        f"<w:r><w:rPr>{rpr}</w:rPr><w:t>{text}</w:t></w:r></w:hyperlink>"
    )
    paragraph._p.append(parse_xml(xml))


def basic():
    d = docx.Document()
    d.add_heading("Kapi user guide", level=0)
    d.add_heading("Getting started", level=1)
    p = d.add_paragraph("Install the tool, then run ")
    p.add_run("kapi check").bold = True
    p.add_run(" in your project. It is ")
    p.add_run("fast").italic = True
    p.add_run(" and ")
    u = p.add_run("careful")
    u.underline = True
    p.add_run(".")
    d.add_heading("Links and layout", level=2)
    p = d.add_paragraph("Read the ")
    hyperlink(p, "https://example.com/docs", "online manual")
    p.add_run(" for details.")
    p = d.add_paragraph()
    p.add_run("Name:")
    p.add_run().add_tab()
    p.add_run("Kapi")
    r = p.add_run("First line")
    r.add_break(WD_BREAK.LINE)
    r.add_text("second line")
    d.add_paragraph("Zkouška češtiny, 日本語のテキスト, emoji 🎉 and “quotes”.")
    d.add_paragraph('Escapes: a < b && c > d, "double" and \'single\'.')
    p = d.add_paragraph()
    p.add_run("Bold start").bold = True
    p.add_run(" then plain, ending in ")
    p.add_run("italics").italic = True
    p = d.add_paragraph()
    big = p.add_run("Large ")
    big.font.size = Pt(16)
    p.add_run("and normal text with   several  spaces ")
    d.add_paragraph("")
    d.add_heading("Deep heading", level=3)
    d.save(os.path.join(OUT, "basic.docx"))


def lists():
    d = docx.Document()
    d.add_heading("Shopping", level=1)
    d.add_paragraph("Fruit", style="List Bullet")
    d.add_paragraph("Apples", style="List Bullet 2")
    d.add_paragraph("Green apples", style="List Bullet 3")
    d.add_paragraph("Vegetables", style="List Bullet")
    d.add_paragraph("First step", style="List Number")
    d.add_paragraph("Second step", style="List Number")
    p = d.add_paragraph("Numbered through numPr at level three")
    ppr = p._p.get_or_add_pPr()
    ppr.append(
        parse_xml(
            f'<w:numPr {nsdecls("w")}><w:ilvl w:val="2"/><w:numId w:val="1"/></w:numPr>'
        )
    )
    d.add_paragraph("A closing paragraph.")
    d.save(os.path.join(OUT, "lists.docx"))


def table():
    d = docx.Document()
    d.add_heading("Prices", level=1)
    t = d.add_table(rows=3, cols=3)
    t.style = "Table Grid"
    cells = [
        ["Item", "Price", "Note"],
        ["Tea", "3 €", "Hot"],
        ["Coffee", "4 €", ""],
    ]
    for r, row in enumerate(cells):
        for c, text in enumerate(row):
            t.cell(r, c).text = text
    t.cell(0, 0).paragraphs[0].runs[0].bold = True
    cell = t.cell(2, 2)
    cell.paragraphs[0].add_run("Strong").bold = True
    cell.add_paragraph("Second paragraph in a cell")
    inner = cell.add_table(rows=1, cols=2)
    inner.cell(0, 0).text = "Nested left"
    inner.cell(0, 1).text = "Nested right"
    d.add_paragraph("After the table.")
    d.save(os.path.join(OUT, "table.docx"))


def fields():
    """Fields, bookmarks, proofing marks and a run split inside one word."""
    d = docx.Document()
    d.add_heading("Fields", level=1)
    p = d.add_paragraph("Page ")
    w = nsdecls("w")
    for xml in [
        f'<w:r {w}><w:fldChar w:fldCharType="begin"/></w:r>',
        f'<w:r {w}><w:instrText xml:space="preserve"> PAGE </w:instrText></w:r>',
        f'<w:r {w}><w:fldChar w:fldCharType="separate"/></w:r>',
        f"<w:r {w}><w:t>1</w:t></w:r>",
        f'<w:r {w}><w:fldChar w:fldCharType="end"/></w:r>',
        f'<w:r {w}><w:t xml:space="preserve"> of the </w:t></w:r>',
        f'<w:bookmarkStart {w} w:id="0" w:name="target"/>',
        f"<w:r {w}><w:t>report</w:t></w:r>",
        f'<w:bookmarkEnd {w} w:id="0"/>',
        f'<w:proofErr {w} w:type="spellStart"/>',
        f"<w:r {w}><w:t>, speling</w:t></w:r>",
        f'<w:proofErr {w} w:type="spellEnd"/>',
        f"<w:r {w}><w:t xml:space=\"preserve\"> mis</w:t></w:r>",
        f"<w:r {w}><w:t>take.</w:t></w:r>",
    ]:
        p._p.append(parse_xml(xml))
    p = d.add_paragraph("Mixed ")
    r = p.add_run("bold italic")
    r.bold = True
    r.italic = True
    p.add_run(" and ")
    r = p.add_run("super")
    r.font.superscript = True
    p.add_run(" script.")
    p = d.add_paragraph()
    hyperlink(p, "https://example.com/a", "A link at the start")
    p.add_run(" and text after it.")
    d.save(os.path.join(OUT, "fields.docx"))


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    basic()
    lists()
    table()
    fields()
