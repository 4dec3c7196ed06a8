"""The ``xdt`` command group: the options of ``xdt`` itself and the list of commands."""

from __future__ import annotations

import click

import xdt


def _show_version(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    """``xdt --version``: the version of :mod:`xdt._version`."""
    if value and not ctx.resilient_parsing:
        click.echo(f"xdt {xdt.__version__}")
        ctx.exit()


class XdtGroup(click.Group):
    """The ``xdt`` group: the same end for every command on Ctrl-C and on an error.

    A command stopped by Ctrl-C (``KeyboardInterrupt``) that does not say itself what it
    had done exits with code 130 after ``interrupted: xdt COMMAND stopped ...`` on standard
    error (not click's "Aborted!" and code 1); the commands that keep partial work
    (``explain``, ``report``, ``crosscheck``) say what they kept and exit 130 too. An error's
    message is made :func:`~xdt.cli._common.terminal_safe` before click prints it."""

    def invoke(self, ctx: click.Context) -> object:
        from xdt.cli._common import echo, terminal_safe

        try:
            return super().invoke(ctx)
        except click.ClickException as e:
            e.message = terminal_safe(e.message)
            raise
        except KeyboardInterrupt:
            name = ctx.invoked_subcommand or "command"
            echo(f"interrupted: xdt {name} stopped before it finished", err=True)
            ctx.exit(130)


# ---------------------------------------------------------------------- the command group
@click.group(cls=XdtGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("-V", "--version", is_flag=True, expose_value=False, is_eager=True,
              callback=_show_version,
              help="Show the version and exit.")
def main() -> None:
    """xdt: formal explanations (AXp, CXp) of decision trees, DNFs, decision lists and tree
    ensembles.

    An AXp (abductive explanation) is a subset-minimal set of feature values that is enough,
    on its own, for the prediction; a CXp (contrastive explanation) is a subset-minimal set
    of features whose change can change it. Both are proved, not estimated.

    \b
    Start with:
      xdt demo                                      # the whole job on German credit
      xdt fit data.csv --target class -o model.json # or --learner ser-dt
      xdt explain model.json --data data.csv --rows 0:5
      xdt report model.json --data data.csv -o report.html  # a page to hand on

    Run `xdt COMMAND --help` for the options of each command.
    """
