import sys

try:
    from .cli import main
except ModuleNotFoundError as exc:
    # Run outside the project's venv (python3 -m torchclaims with the system Python): one line
    # naming the venv to activate, not the import's traceback. The string table needs no dependency.
    if (exc.name or "").partition(".")[0] == __package__:
        raise
    import pathlib

    from .strings import default_lang, text
    venv = pathlib.Path(__file__).resolve().parent.parent / ".venv"
    print(text(default_lang(), "no_venv", module=exc.name, venv=venv), file=sys.stderr)
    sys.exit(2)

sys.exit(main())
