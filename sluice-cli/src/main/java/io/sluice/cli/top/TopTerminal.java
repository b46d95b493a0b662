package io.sluice.cli.top;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.jline.keymap.BindingReader;
import org.jline.keymap.KeyMap;
import org.jline.reader.EndOfFileException;
import org.jline.terminal.Attributes;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;
import org.jline.utils.AttributedString;
import org.jline.utils.AttributedStringBuilder;
import org.jline.utils.AttributedStyle;
import org.jline.utils.Display;
import org.jline.utils.InfoCmp.Capability;

/**
 * The real terminal, through JLine: raw mode on the alternate screen with the cursor hidden,
 * keys decoded from the terminal's own sequences (and the common ANSI ones), and screens drawn
 * by updating only the lines that changed. Everything is restored on close.
 */
final class TopTerminal implements AutoCloseable {
  /** How long a lone Escape waits for the rest of a key sequence. */
  private static final long ESCAPE_WAIT_MS = 100;

  private final Terminal terminal;
  private final Attributes saved;
  private final Display display;
  private final BindingReader reader;
  private final KeyMap<Key.Kind> keys;
  private int width;
  private int height;

  private TopTerminal(Terminal terminal) {
    this.terminal = terminal;
    this.saved = terminal.enterRawMode();
    terminal.puts(Capability.enter_ca_mode);
    terminal.puts(Capability.keypad_xmit);
    terminal.puts(Capability.cursor_invisible);
    terminal.flush();
    this.display = new Display(terminal, true);
    this.reader = new BindingReader(terminal.reader());
    this.keys = keyMap(terminal);
    size();
  }

  /** Opens the process's terminal; fails when there is none (output piped, no tty). */
  static TopTerminal open() throws IOException {
    Terminal terminal = TerminalBuilder.builder().system(true).dumb(false).build();
    if (Terminal.TYPE_DUMB.equals(terminal.getType())
        || Terminal.TYPE_DUMB_COLOR.equals(terminal.getType())) {
      terminal.close();
      throw new IOException("sluice top needs a terminal");
    }
    return new TopTerminal(terminal);
  }

  /** Runs {@code action} (on a signal thread) when the window size changes. */
  void onResize(Runnable action) {
    terminal.handle(Terminal.Signal.WINCH, signal -> action.run());
  }

  /** Runs {@code action} (on a signal thread) on Ctrl-C when the terminal sends it as a signal. */
  void onInterrupt(Runnable action) {
    terminal.handle(Terminal.Signal.INT, signal -> action.run());
  }

  int width() {
    return width;
  }

  int height() {
    return height;
  }

  /** Reads the size again after a resize; the next draw repaints everything. */
  void size() {
    width = Math.max(20, terminal.getWidth());
    height = Math.max(10, terminal.getHeight());
    display.clear();
    display.resize(height, width);
  }

  /** The next key, blocking; null once input has ended or the terminal was closed. */
  Key readKey() {
    Key.Kind kind;
    try {
      kind = reader.readBinding(keys);
    } catch (EndOfFileException e) {
      return null;
    }
    if (kind == null) {
      return null;
    }
    if (kind == Key.Kind.CHAR) {
      String typed = reader.getLastBinding();
      return typed == null || typed.isEmpty() ? null : Key.ch(typed.charAt(0));
    }
    return Key.of(kind);
  }

  void draw(List<Line> lines) {
    List<AttributedString> styled = new ArrayList<>(lines.size());
    for (Line line : lines) {
      AttributedStringBuilder builder = new AttributedStringBuilder();
      for (Line.Span span : line.spans()) {
        builder.styled(style(span.style()), span.text());
      }
      styled.add(builder.toAttributedString());
    }
    display.update(styled, 0);
    terminal.flush();
  }

  @Override
  public void close() throws IOException {
    terminal.puts(Capability.cursor_visible);
    terminal.puts(Capability.keypad_local);
    terminal.puts(Capability.exit_ca_mode);
    terminal.flush();
    terminal.setAttributes(saved);
    terminal.close();
  }

  private static AttributedStyle style(Line.Style style) {
    return switch (style) {
      case PLAIN -> AttributedStyle.DEFAULT;
      case BOLD -> AttributedStyle.BOLD;
      case REVERSE -> AttributedStyle.INVERSE;
      case DIM -> AttributedStyle.DEFAULT.faint();
      case MATCH -> AttributedStyle.DEFAULT.foreground(AttributedStyle.YELLOW).bold();
      case ALERT -> AttributedStyle.DEFAULT.foreground(AttributedStyle.RED).bold();
    };
  }

  private static KeyMap<Key.Kind> keyMap(Terminal terminal) {
    KeyMap<Key.Kind> map = new KeyMap<>();
    for (char c = ' '; c < 127; c++) {
      map.bind(Key.Kind.CHAR, Character.toString(c));
    }
    map.setUnicode(Key.Kind.CHAR);
    bind(map, terminal, Key.Kind.UP, Capability.key_up, "\033[A", "\033OA");
    bind(map, terminal, Key.Kind.DOWN, Capability.key_down, "\033[B", "\033OB");
    bind(map, terminal, Key.Kind.RIGHT, Capability.key_right, "\033[C", "\033OC");
    bind(map, terminal, Key.Kind.LEFT, Capability.key_left, "\033[D", "\033OD");
    bind(map, terminal, Key.Kind.PAGE_UP, Capability.key_ppage, "\033[5~");
    bind(map, terminal, Key.Kind.PAGE_DOWN, Capability.key_npage, "\033[6~");
    bind(map, terminal, Key.Kind.HOME, Capability.key_home, "\033[H", "\033OH", "\033[1~",
        "\033[7~");
    bind(map, terminal, Key.Kind.END, Capability.key_end, "\033[F", "\033OF", "\033[4~",
        "\033[8~");
    bind(map, terminal, Key.Kind.BACK_TAB, Capability.key_btab, "\033[Z");
    bind(map, terminal, Key.Kind.BACKSPACE, Capability.key_backspace, "\177", "\b");
    map.bind(Key.Kind.TAB, "\t");
    map.bind(Key.Kind.ENTER, "\r", "\n");
    map.bind(Key.Kind.ESCAPE, "\033");
    map.bind(Key.Kind.CTRL_C, KeyMap.ctrl('c'));
    map.setAmbiguousTimeout(ESCAPE_WAIT_MS);
    return map;
  }

  private static void bind(KeyMap<Key.Kind> map, Terminal terminal, Key.Kind kind,
      Capability capability, String... sequences) {
    String fromTerminal = KeyMap.key(terminal, capability);
    if (fromTerminal != null && !fromTerminal.isEmpty()) {
      map.bind(kind, fromTerminal);
    }
    map.bind(kind, sequences);
  }
}
