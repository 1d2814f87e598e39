"""The bundled source catalog (installed as ``lightsearch.catalog``): ``sources.json`` and its evidence."""
