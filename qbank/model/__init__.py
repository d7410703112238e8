"""What a question is: the pydantic model and the boundary that turns its errors into findings, and
the bank's own tables it is checked against.

    question.py    Question, the model (enums, lengths, the field rules attached to fields)
    records.py     validate(): a Document -> a Record and findings (the pydantic boundary)
    fields/        the field rules: one value -> a Problem
    taxonomy.py    the bank's schema/ folder: topics and title words
    vocabulary.py  tracks, levels, areas and other fixed words
    hardware.py    the hardware table the hardware-constants rule compares with

Importing this package imports nothing: the engine reads the taxonomy before it needs pydantic.
"""
