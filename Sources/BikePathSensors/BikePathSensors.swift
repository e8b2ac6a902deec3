// Live sources, recording files and importers live in this module.
