package io.sluice.client;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;

/**
 * The little DER that reading PEM private keys needs: walking the elements of a structure and
 * writing a SEQUENCE, so that PKCS#1 and SEC1 keys can be wrapped into PKCS#8 for the JDK's
 * {@code KeyFactory}. Only single-byte tags and definite lengths, as DER requires of keys.
 * Malformed input throws {@link IllegalArgumentException} ("malformed DER: ..."); the caller
 * names the file.
 */
final class Der {
  static final int INTEGER = 0x02;
  static final int OCTET_STRING = 0x04;
  static final int NULL = 0x05;
  static final int OID = 0x06;
  static final int SEQUENCE = 0x30;
  /** {@code [0]}, constructed: where SEC1 keeps the curve. */
  static final int CONTEXT_0 = 0xa0;

  /** One element: its tag, and where its encoding and its content lie in {@code source}. */
  record Element(int tag, byte[] source, int start, int contentStart, int end) {
    byte[] encoded() {
      return Arrays.copyOfRange(source, start, end);
    }

    byte[] content() {
      return Arrays.copyOfRange(source, contentStart, end);
    }

    /** The elements inside a constructed element (a SEQUENCE, a {@code [0]}). */
    Reader children() {
      return new Reader(source, contentStart, end);
    }
  }

  /** Consecutive elements of a byte range, read front to back. */
  static final class Reader {
    private final byte[] source;
    private final int end;
    private int position;

    Reader(byte[] der) {
      this(der, 0, der.length);
    }

    private Reader(byte[] source, int start, int end) {
      this.source = source;
      this.position = start;
      this.end = end;
    }

    boolean hasNext() {
      return position < end;
    }

    Element next() {
      int start = position;
      int tag = take();
      if ((tag & 0x1f) == 0x1f) {
        throw new IllegalArgumentException("malformed DER: multi-byte tag");
      }
      int first = take();
      long length = first;
      if (first == 0x80) {
        throw new IllegalArgumentException("malformed DER: indefinite length");
      }
      if (first > 0x80) {
        int bytes = first - 0x80;
        if (bytes > 4) {
          throw new IllegalArgumentException("malformed DER: length of " + bytes + " bytes");
        }
        length = 0;
        for (int i = 0; i < bytes; i++) {
          length = (length << 8) | take();
        }
      }
      if (length > end - position) {
        throw new IllegalArgumentException("malformed DER: an element runs past its end");
      }
      int contentStart = position;
      position += (int) length;
      return new Element(tag, source, start, contentStart, position);
    }

    /** The next element, which must carry {@code tag}; {@code what} names it in the error. */
    Element next(int tag, String what) {
      if (!hasNext()) {
        throw new IllegalArgumentException("malformed DER: " + what + " missing");
      }
      Element element = next();
      if (element.tag() != tag) {
        throw new IllegalArgumentException("malformed DER: " + what + " expected, found tag 0x"
            + Integer.toHexString(element.tag()));
      }
      return element;
    }

    private int take() {
      if (position >= end) {
        throw new IllegalArgumentException("malformed DER: truncated");
      }
      return source[position++] & 0xff;
    }
  }

  private Der() {}

  /** A SEQUENCE of the given, already encoded, elements. */
  static byte[] sequence(byte[]... elements) {
    ByteArrayOutputStream content = new ByteArrayOutputStream();
    for (byte[] element : elements) {
      content.writeBytes(element);
    }
    return element(SEQUENCE, content.toByteArray());
  }

  static byte[] element(int tag, byte[] content) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(content.length + 6);
    out.write(tag);
    int length = content.length;
    if (length < 0x80) {
      out.write(length);
    } else {
      int bytes = (32 - Integer.numberOfLeadingZeros(length) + 7) / 8;
      out.write(0x80 + bytes);
      for (int shift = (bytes - 1) * 8; shift >= 0; shift -= 8) {
        out.write(length >>> shift);
      }
    }
    out.writeBytes(content);
    return out.toByteArray();
  }

  /** An OBJECT IDENTIFIER's content in dotted form, for error messages. */
  static String dotted(byte[] oid) {
    StringBuilder text = new StringBuilder();
    long arc = 0;
    for (int i = 0; i < oid.length; i++) {
      arc = (arc << 7) | (oid[i] & 0x7f);
      if ((oid[i] & 0x80) == 0) {
        if (text.length() == 0) {
          int first = (int) Math.min(2, arc / 40);
          text.append(first).append('.').append(arc - 40L * first);
        } else {
          text.append('.').append(arc);
        }
        arc = 0;
      }
    }
    return text.toString();
  }
}
