"""Field rules: plain functions from one value to a Problem (or None), attached to the model's fields
(qbank/model/question.py), so they run inside pydantic validation and can be tested alone."""
