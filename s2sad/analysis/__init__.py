"""Facts about the IR, computed and never rewritten: memory effects and array roots
(``effects``), thread and iteration ownership of accumulations (``index_forms``,
``accumulation``), integer ranges (``ranges``), and ``undef`` yields nothing reads
(``unread_yields``). Passes, reverse mode and the emitters ask them."""
