"""Item pipelines (installed as ``lightsearch.pipelines``): extraction to documents, the record cache."""
