package io.sluice.api.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.sluice.engine.SluiceException;
import org.junit.jupiter.api.Test;

/** A jq {@code filter} that recurses without end is a client error, never a stack overflow. */
class PayloadFilterTest {
  @Test
  void recursionWithoutEndIsRejectedAtCompileTime() {
    assertThatThrownBy(() -> PayloadFilter.compile("def f: f; f"))
        .isInstanceOf(SluiceException.InvalidRequest.class)
        .hasMessage("invalid filter: recursion too deep");
  }

  @Test
  void recursionWithoutEndOnSomePayloadsIsNoMatch() {
    PayloadFilter filter = PayloadFilter.compile("def f: if . == 1 then f else . end; f");

    assertThat(filter.matches(JsonNodeFactory.instance.numberNode(1))).isFalse();
    assertThat(filter.matches(JsonNodeFactory.instance.numberNode(2))).isTrue();
  }
}
