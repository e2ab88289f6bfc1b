"""The sandbox every page renders in, bounded by construction (docs/security.md)."""

from __future__ import annotations

import sys
from functools import update_wrapper
from typing import Any

import jinja2
from jinja2 import nodes
from jinja2.compiler import CodeGenerator, Frame
from jinja2.nodes import Concat
from jinja2.runtime import Macro
from jinja2.sandbox import ImmutableSandboxedEnvironment
from markupsafe import Markup

from flows.core.pages import template_limits as limits
from flows.core.pages import value_bounds as vb
from flows.core.pages.filter_bounds import wrap_filters


class BoundedCode(CodeGenerator):
    """Jinja's code generator, with ``~`` and the output buffers going through the environment."""

    def buffer(self, frame: Frame) -> None:
        frame.buffer = self.temporary_identifier()
        self.writeline(f"{frame.buffer} = environment.block_buffer()")

    def visit_Getitem(self, node: nodes.Getitem, frame: Frame) -> None:
        """A slice through ``environment.sliced`` (Jinja writes it as Python's own ``value[a:b]``)."""
        if not isinstance(node.arg, nodes.Slice):
            super().visit_Getitem(node, frame)
            return
        self.write("environment.sliced(")
        self.visit(node.node, frame)
        self.write(", slice(")
        for part in (node.arg.start, node.arg.stop, node.arg.step):
            if part is None:
                self.write("None")
            else:
                self.visit(part, frame)
            self.write(", ")
        self.write("))")

    def visit_Concat(self, node: Concat, frame: Frame) -> None:
        escaped = "context.eval_ctx.volatile" if frame.eval_ctx.volatile else str(bool(frame.eval_ctx.autoescape))
        self.write("environment.tilde((")
        for arg in node.nodes:
            self.visit(arg, frame)
            self.write(", ")
        self.write(f"), {escaped})")


class BoundedSandbox(ImmutableSandboxedEnvironment):
    """The sandbox, with what an expression may build bounded (see the module's doc)."""

    code_generator_class = BoundedCode
    intercepted_binops = frozenset({"+", "-", "*", "/", "//", "%", "**"})
    concat = staticmethod(limits.bounded_concat)  # type: ignore[assignment]
    block_buffer = limits.BlockBuffer
    ticking = staticmethod(limits.ticking)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, finalize=self.bounded_output_value, **kwargs)
        wrap_filters(self.filters)
        self.globals.update(range=limits.BoundedRange, lipsum=limits.bounded_lipsum, namespace=vb.BoundedNamespace)

    def _parse(self, source: str, name: str | None, filename: str | None) -> nodes.Template:
        tree = super()._parse(source, name, filename)
        if limits.bounded():  # a requester's template, or what it extends: its size bounds the compile's cost
            size = sum(1 for _ in tree.find_all(nodes.Node))
            if size > limits.MAX_TEMPLATE_NODES:
                raise limits.TemplateLimit(f"the template parses into {size:,} parts, over the "
                                           f"{limits.MAX_TEMPLATE_NODES:,} a page may have")
        for loop in tree.find_all(nodes.For):
            ticking = nodes.EnvironmentAttribute("ticking", lineno=loop.iter.lineno)
            loop.iter = nodes.Call(ticking, [loop.iter], [], None, None, lineno=loop.iter.lineno)
        return tree

    def getattr(self, obj: Any, attribute: str) -> Any:
        """``item.update`` is the item's column ``update``: a dict's key before its method (Jinja looks the other
        way), so a column named like one (items, keys, get, copy, update...) reads as any other."""
        if type(obj) is dict and type(attribute) is str and attribute in obj:
            return obj[attribute]
        return super().getattr(obj, attribute)

    @staticmethod
    def bounded_output_value(value: Any) -> Any:
        """Every ``{{ value }}`` before it becomes text: at most the page's size."""
        if limits.bounded() and not isinstance(value, str):
            vb.need("a value shown", vb.text_bound(value), limits.MAX_OUTPUT_CHARS)
        return value

    @staticmethod
    def sliced(value: Any, index: slice) -> Any:
        """``value[a:b:c]``, a copy, counted with what the render builds."""
        if not limits.bounded():
            return value[index]
        limits.check_deadline()
        return vb.checked(value[index], limits.MAX_OUTPUT_CHARS)

    def call_binop(self, context: jinja2.runtime.Context, operator: str, left: Any, right: Any) -> Any:
        if limits.bounded():
            vb.before_binop(operator, left, right)
        return vb.checked(super().call_binop(context, operator, left, right))

    def tilde(self, values: tuple[Any, ...], escaped: bool) -> str:
        """``a ~ b ~ c``: each operand's text bounded, then their sum, before any is written out."""
        if limits.bounded():
            limits.check_deadline()
            factor = 6 if escaped and any(hasattr(v, "__html__") for v in values) else 1  # the rest escaped
            vb.need("a joined value", factor * sum(vb.text_bound(v) for v in values))
        joined = jinja2.runtime.markup_join(values) if escaped else "".join(map(str, values))
        if limits.bounded():
            limits.count_built(sys.getsizeof(joined))
        return joined

    def wrap_str_format(self, value: Any) -> Any:
        """``str.format``/``format_map`` as Jinja's sandbox wraps them, with a formatter that bounds each field."""
        if super().wrap_str_format(value) is None:
            return None
        text = value.__self__
        formatter = vb.BoundedEscapeFormatter(self, escape=text.escape) if isinstance(text, Markup) else \
            vb.BoundedFormatter(self)
        is_map = value.__name__ == "format_map"

        def wrapper(*args: Any, **kwargs: Any) -> str:
            if is_map:
                if kwargs or len(args) != 1:
                    raise TypeError("format_map() takes exactly one argument")
                return type(text)(formatter.vformat(text, (), args[0]))
            return type(text)(formatter.vformat(text, args, kwargs))

        return update_wrapper(wrapper, value)

    def call(__self, __context: jinja2.runtime.Context, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        if not limits.bounded():
            return super().call(__context, __obj, *args, **kwargs)
        limits.check_deadline()
        method = vb.method_bound(__obj)
        # inside a block Jinja passes the block's variables too (for a context function): not the call's own
        own = {name: value for name, value in kwargs.items() if name != "_block_vars"}
        if method is not None:
            owner, bound = method
            if bound is vb._join_marker:
                args = (vb.bounded_join(owner, args[0] if args else ()), *args[1:])
                factor = 6 if isinstance(owner, Markup) else 1
                vb.need("a joined value", factor * sum(vb.text_bound(p) for p in args[0]))
            else:
                bound(owner, args, own)
        result = super().call(__context, __obj, *args, **kwargs)
        return vb.checked(result, limits.MAX_OUTPUT_CHARS if isinstance(__obj, Macro) else limits.MAX_VALUE_CHARS)
