package io.sluice.cli.top;

/** One key press, as {@code sluice top} understands it; {@code ch} is set for {@link Kind#CHAR}. */
public record Key(Kind kind, char ch) {
  /** The keys with a meaning of their own. */
  public enum Kind {
    CHAR, UP, DOWN, LEFT, RIGHT, PAGE_UP, PAGE_DOWN, HOME, END, TAB, BACK_TAB, ENTER, ESCAPE,
    BACKSPACE, CTRL_C
  }

  public static Key of(Kind kind) {
    return new Key(kind, '\0');
  }

  public static Key ch(char ch) {
    return new Key(Kind.CHAR, ch);
  }

  public boolean is(char c) {
    return kind == Kind.CHAR && ch == c;
  }
}
