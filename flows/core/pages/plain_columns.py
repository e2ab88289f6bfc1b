"""Whether a template shows its items' columns only as printed values (so pages can be joined)."""

from __future__ import annotations

from functools import lru_cache

import jinja2
from jinja2 import nodes

from flows.core.pages.templates import environment

PRINTING_FILTERS = ("safe_url",)  # filters that leave every value the join accepts as it is


@lru_cache(maxsize=8)
def shows_columns_plainly(source: str) -> bool:
    """See the module; a template Jinja cannot parse is not plain."""
    try:
        tree = environment().parse(source)
    except jinja2.TemplateSyntaxError:
        return False
    return _plain(tree, None, None)


def _plain(node: nodes.Node, parent: nodes.Node | None, grandparent: nodes.Node | None) -> bool:
    if isinstance(node, (nodes.EvalContextModifier, nodes.FilterBlock)):  # autoescape off, a filter over output
        return False
    if isinstance(node, nodes.Name) and (node.name == "items" or (
            node.name == "item" and not (isinstance(parent, (nodes.Getattr, nodes.Getitem)) and parent.node is node))):
        return False
    if _column(node) and not _printed(node, parent, grandparent):
        return False
    return all(_plain(child, node, parent) for child in node.iter_child_nodes())


def _column(node: nodes.Node) -> bool:
    """``item.x`` or ``item[...]``."""
    return isinstance(node, (nodes.Getattr, nodes.Getitem)) and isinstance(node.node, nodes.Name) \
        and node.node.name == "item"


def _printed(node: nodes.Node, parent: nodes.Node | None, grandparent: nodes.Node | None) -> bool:
    """``{{ item.x }}`` or ``{{ item.x | safe_url }}``, a constant key for ``item[...]``."""
    if isinstance(node, nodes.Getitem) and not isinstance(node.arg, nodes.Const):
        return False
    if isinstance(parent, nodes.Output):
        return True
    return isinstance(parent, nodes.Filter) and parent.name in PRINTING_FILTERS and parent.node is node \
        and not parent.args and not parent.kwargs and parent.dyn_args is None and parent.dyn_kwargs is None \
        and isinstance(grandparent, nodes.Output)
