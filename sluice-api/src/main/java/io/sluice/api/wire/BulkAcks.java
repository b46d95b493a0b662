package io.sluice.api.wire;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.engine.AckedIds;
import io.sluice.engine.SluiceException;
import io.sluice.engine.budget.JobSettlement;
import java.util.ArrayList;
import java.util.List;

/**
 * The body of a bulk acknowledgement ({@code POST /jobs/success}): the ids, and the settlements of
 * some of them (X5). A plain body is read by {@link PlainAckReader}, any other as a document tree.
 */
public record BulkAcks(AckedIds ids, List<JobSettlement> settlements) {
  /** Reads a body that passed {@link Bodies#checked}; throws the 4xx naming its problem. */
  public static BulkAcks read(Format format, byte[] body) {
    AckedIds plain = PlainAckReader.ids(format, body);
    return plain != null
        ? new BulkAcks(plain, List.of())
        : fromTree(format, Bodies.tree(format, body));
  }

  static BulkAcks fromTree(Format format, JsonNode body) {
    Fields fields = new Fields(format, "");
    fields.object(body, "the request");
    JsonNode array = fields.required(body, "ids");
    if (!array.isArray()) {
      throw fields.error("`ids` must be an array of strings");
    }
    List<String> ids = new ArrayList<>(array.size());
    for (JsonNode element : array) {
      if (!element.isTextual()) {
        throw fields.error("`ids` must be an array of strings");
      }
      ids.add(element.textValue());
    }
    if (ids.isEmpty()) {
      throw new SluiceException.InvalidRequest("ids must not be empty");
    }
    return new BulkAcks(AckedIds.of(ids), SettlementParser.bulk(fields, body));
  }
}
