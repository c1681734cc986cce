"""Importing this module makes `import tilelang` give tilec's compatibility layer, even
where the real TileLang is installed (explicit opt-in; see tilec.compat)."""
from . import install

tilelang = install(force=True)
