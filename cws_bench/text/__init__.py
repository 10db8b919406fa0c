"""Text in and out: reading files (encodings, atomic writes), checksums, normalisers,
dictionaries and their checks, the general metrics' file inputs."""
