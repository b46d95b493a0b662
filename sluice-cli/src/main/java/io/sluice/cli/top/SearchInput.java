package io.sluice.cli.top;

/**
 * The search bar while the operator types (CLI.md §10.4): a type field and a queue field, Tab
 * switching between them. Each field holds comma- or space-separated terms.
 */
public final class SearchInput {
  /** The field that receives typed characters. */
  public enum Field { TYPE, QUEUE }

  private final StringBuilder types;
  private final StringBuilder queues;
  private Field active = Field.TYPE;

  SearchInput(String types, String queues) {
    this.types = new StringBuilder(types);
    this.queues = new StringBuilder(queues);
  }

  public String types() {
    return types.toString();
  }

  public String queues() {
    return queues.toString();
  }

  public Field active() {
    return active;
  }

  void switchField() {
    active = active == Field.TYPE ? Field.QUEUE : Field.TYPE;
  }

  void type(char c) {
    field().append(c);
  }

  void backspace() {
    StringBuilder field = field();
    if (field.length() > 0) {
      field.setLength(field.length() - 1);
    }
  }

  private StringBuilder field() {
    return active == Field.TYPE ? types : queues;
  }
}
