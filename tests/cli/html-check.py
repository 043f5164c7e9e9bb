#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# html-check.py - check an HTML report (as the browser built its DOM, or as written) against its result file:
# every verdict, ratio, CI and cause share it prints, every sample it draws, a text alternative on every plot,
# and nothing fetched from elsewhere.
#
#   html-check.py RESULT.json PAGE.html
#
# Prints one line per problem and exits 1, or prints what it checked and exits 0.
import html.parser
import json
import math
import re
import shlex
import sys


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent, self.children = tag, dict(attrs), parent, []

    def classes(self):
        return self.attrs.get("class", "").split()

    def text(self):
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def walk(self):
        yield self
        for c in self.children:
            if isinstance(c, Node):
                yield from c.walk()

    def find_all(self, pred):
        return [n for n in self.walk() if pred(n)]

    def ancestors(self):
        n = self.parent
        while n:
            yield n
            n = n.parent


VOID = {"meta", "link", "br", "img", "input", "hr", "area", "base", "col", "source", "wbr"}


class Builder(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", {}, None)
        self.cur = self.root

    def handle_starttag(self, tag, attrs):
        n = Node(tag, attrs, self.cur)
        self.cur.children.append(n)
        if tag not in VOID:
            self.cur = n

    def handle_startendtag(self, tag, attrs):
        self.cur.children.append(Node(tag, attrs, self.cur))

    def handle_endtag(self, tag):
        n = self.cur
        while n is not self.root and n.tag != tag:
            n = n.parent
        if n is not self.root:
            self.cur = n.parent

    def handle_data(self, data):
        self.cur.children.append(data)


def pct(x):
    return 100 * (x - 1)


def cell_text(c):
    """report-format.c's ws_report_cell_text(), from the result file's fields."""
    v, r, (lo, hi) = c["verdict"], c["ratio"], c["ci"]
    if v == "none":
        return "%+.1f%% (too few runs)" % pct(r) if r is not None else "-"
    if r is None:
        return "~ (baseline 0)" if v == "same" else "new (baseline 0)"
    if c["exact"]:
        return "= exact" if v == "same" else "%+.2f%% exact" % pct(r)
    if lo is None:
        return "%s%+.1f%%" % ("~ " if v == "same" else "", pct(r))
    prefix = "~ " if v == "same" else "≈ " if v == "noise" else ""
    return "%s%+.1f%% [%+.1f, %+.1f]" % (prefix, pct(r), pct(lo), pct(hi) if hi is not None else math.inf)


def numbers_agree(text, c):
    """The numbers the cell prints are the JSON's, to the digits printed."""
    m = re.search(r"([+-](?:\d+\.\d+|inf))% (?:exact|\[([+-][\d.]+|[+-]inf), ([+-][\d.]+|[+-]inf)\])?", text)
    if not m or c["ratio"] is None:
        return True
    digits = 2 if "exact" in text else 1
    tol = 0.5 * 10 ** -digits + 1e-9
    if abs(float(m.group(1)) - pct(c["ratio"])) > tol:
        return False
    lo, hi = c["ci"]
    if m.group(2):
        if abs(float(m.group(2)) - pct(lo)) > tol:
            return False
        if hi is not None and abs(float(m.group(3)) - pct(hi)) > tol:
            return False
    return True


def cause_text(c):
    lo, hi = c["share_ci"]
    if lo is not None and hi is not None and hi - lo > 0.005:
        return "%.0f%% [%.0f, %.0f]" % (100 * c["share"], 100 * lo, 100 * hi)
    return "%.0f%%" % (100 * c["share"])


def main():
    res = json.load(open(sys.argv[1]))
    b = Builder()
    b.feed(open(sys.argv[2], encoding="utf-8").read())
    root = b.root
    problems = []
    checked = {"comparisons": 0, "causes": 0, "marks": 0, "plots": 0}

    def key(c):
        return (c["variant"], c["metric"], c.get("region"), c.get("function"))

    # A function's inclusive and per-caller comparisons are drawn as bars, not cells: the cells are its own.
    cmps = {key(c): c for c in res["comparisons"] if not c.get("caller") and not c.get("inclusive")}
    shown = set()
    for n in root.find_all(lambda n: "cmp" in n.classes() and "data-variant" in n.attrs):
        k = (n.attrs["data-variant"], n.attrs["data-metric"], n.attrs.get("data-region"), n.attrs.get("data-function"))
        c = cmps.get(k)
        if not c:
            problems.append("the page shows a comparison the result does not have: %s" % (k,))
            continue
        cells = [x for x in n.walk() if "cell" in x.classes()]
        verdicts = [x for x in n.walk() if "verdict" in x.classes()]
        if len(cells) != 1 or len(verdicts) != 1:
            problems.append("%s: %d cells and %d verdicts in one element" % (k, len(cells), len(verdicts)))
            continue
        want = cell_text(c)
        if cells[0].text() != want:
            problems.append("%s: the page says %r, the result %r" % (k, cells[0].text(), want))
        if not numbers_agree(cells[0].text(), c):
            problems.append("%s: the numbers of %r are not the result's (ratio %r, ci %r)" %
                            (k, cells[0].text(), c["ratio"], c["ci"]))
        if verdicts[0].text() != c["verdict"]:
            problems.append("%s: verdict %r in the page, %r in the result" % (k, verdicts[0].text(), c["verdict"]))
        if c["verdict"] not in n.classes():
            problems.append("%s: drawn in the colour of another verdict (%s)" % (k, n.attrs.get("class")))
        shown.add(k)
        checked["comparisons"] += 1

    # What must be there: each comparison of the whole process and of a region; each significant one twice
    # (its table and the forest plot); each variant's headline.
    forest = set()
    for n in root.find_all(lambda n: n.tag == "g" and "cmp" in n.classes()):
        if any(a.attrs.get("id") == "changes" for a in n.ancestors()):
            forest.add((n.attrs["data-variant"], n.attrs["data-metric"], n.attrs.get("data-region")))
    for c in res["comparisons"]:
        if c.get("function"):
            continue
        if key(c) not in shown:
            problems.append("the comparison %s is not in the page" % (key(c),))
        if c["verdict"] in ("slower", "faster", "changed", "noise") and key(c)[:3] not in forest:
            problems.append("the %s comparison %s is not in the forest plot" % (c["verdict"], key(c)))
    heads = {n.attrs.get("data-variant") for n in root.find_all(lambda n: "headline" in n.classes())}
    if res["comparisons"]:
        base = next((v["name"] for v in res["variants"] if v.get("baseline")), res["variants"][0]["name"])
        for v in res["variants"]:
            if v["name"] != base and v["name"] not in heads:
                problems.append("no verdict for %s" % v["name"])

    for e in res.get("explain", []):
        for c in e["causes"]:
            if c["share"] is None:
                continue
            g = root.find_all(lambda n: "cause" in n.classes() and n.attrs.get("data-variant") == e["variant"]
                              and n.attrs.get("data-cause") == c["metric"])
            texts = [x.text() for n in g for x in n.walk() if "share" in x.classes()]
            # The page lists the material causes (in the bar, the others too): a large share of a delta
            # that is small against a noisy measured difference is not one (seen under load).
            if not c.get("material"):
                if texts:
                    problems.append("cause %s of %s is immaterial, but the page lists it" % (c["metric"], e["variant"]))
                continue
            if texts != [cause_text(c)]:
                problems.append("cause %s of %s: the page says %r, the result %r" %
                                (c["metric"], e["variant"], texts, cause_text(c)))
            checked["causes"] += 1

    for v in res["variants"]:
        for name, m in v["metrics"].items():
            n = sum(1 for x in m.get("samples", []) if x is not None)
            for plot in ("strip", "runs"):
                g = root.find_all(lambda x: "samples" in x.classes() and x.attrs.get("data-plot") == plot and
                                  x.attrs.get("data-variant") == v["name"] and x.attrs.get("data-metric") == name)
                marks = sum(1 for x in g for y in x.walk() if y.tag == "circle" and "s" in y.classes())
                if n and len(g) != 1:
                    problems.append("%s of %s: %d %s plots for %d samples" % (name, v["name"], len(g), plot, n))
                elif marks != n:
                    problems.append("%s of %s: %d marks in the %s plot, %d samples in the result" %
                                    (name, v["name"], marks, plot, n))
                checked["marks"] += marks

    for s in root.find_all(lambda n: n.tag == "svg"):
        kids = [c for c in s.children if isinstance(c, Node)]
        t = [c for c in kids if c.tag == "title"]
        d = [c for c in kids if c.tag == "desc"]
        if not t or not t[0].text().strip() or not d or not d[0].text().strip():
            problems.append("a plot without its <title> and <desc>: %s" % (s.attrs,))
        checked["plots"] += 1

    for n in root.walk():
        if n.tag in ("script", "link", "img", "iframe", "object", "embed"):
            problems.append("the page has a <%s>" % n.tag)
        for a in ("src", "href", "xlink:href"):
            if a in n.attrs and not n.attrs[a].startswith("#"):
                problems.append("the page refers to %s" % n.attrs[a])
        if "url(" in n.attrs.get("style", ""):
            problems.append("the page loads %s" % n.attrs["style"])

    argv = res["settings"].get("command_line")
    repro = root.find_all(lambda n: "reproduce" in n.classes())
    if argv:
        words = shlex.split(repro[0].text()) if repro else []
        if "&&" in words:
            words = words[words.index("&&") + 1:]
        if words != argv:
            problems.append("the command to reproduce reads %r, the result holds %r" % (words, argv))

    for p in problems:
        print("html-check: %s" % p)
    if problems:
        return 1
    print("html-check: %(comparisons)d comparisons, %(causes)d causes, %(marks)d sample marks, %(plots)d plots" %
          checked)
    return 0


if __name__ == "__main__":
    sys.exit(main())
