// apnsim's `OSLog` module for extensions built on Linux: what `import OSLog` brings, the `os` names (Logger.swift).
@_exported import os
