import { type FakeBlock, txnCount } from "./chain.js";

const hex = (n: bigint, width = 64) => `0x${n.toString(16).padStart(width, "0")}`;

/** The API JSON of the transaction at position `index` of block `b`. */
export function renderTxn(b: FakeBlock, index: number): Record<string, unknown> {
  const version = b.firstVersion + BigInt(index);
  const common = {
    version: version.toString(),
    hash: hex(version * 7919n + 1n),
    state_change_hash: hex(version),
    event_root_hash: hex(version + 1n),
    state_checkpoint_hash: null,
    gas_used: "0",
    success: true,
    vm_status: "Executed successfully",
    accumulator_root_hash: hex(version + 2n),
    changes: [],
  };
  if (b.ending === "genesis")
    return { type: "genesis_transaction", ...common, payload: { type: "write_set_payload" } };
  if (index === 0)
    return {
      type: "block_metadata_transaction",
      ...common,
      id: hex(b.height * 31n),
      epoch: b.epoch.toString(),
      round: (b.height * 2n).toString(),
      events: [],
      previous_block_votes_bitvec: [],
      proposer: hex(b.height % 5n),
      failed_proposer_indices: [],
      timestamp: b.timestampUsec.toString(),
    };
  let i = index - 1;
  if (i < b.validatorTxns)
    return {
      type: "validator_transaction",
      ...common,
      events: [],
      timestamp: b.timestampUsec.toString(),
    };
  i -= b.validatorTxns;
  if (i < b.users.length) {
    const u = b.users[i]!;
    return {
      type: "user_transaction",
      ...common,
      success: u.success,
      vm_status: u.success ? "Executed successfully" : "Move abort",
      gas_used: u.gasUsed.toString(),
      sender: hex(version % 97n),
      sequence_number: (version % 1000n).toString(),
      max_gas_amount: "200000",
      gas_unit_price: u.price.toString(),
      expiration_timestamp_secs: (b.timestampUsec / 1_000_000n + 60n).toString(),
      payload: u.spelling
        ? {
            type: "entry_function_payload",
            function: `${u.spelling}::coin::transfer`,
            type_arguments: ["0x1::aptos_coin::AptosCoin"],
            arguments: [hex(version), "1000"],
          }
        : {
            type: "script_payload",
            code: { bytecode: "0xa11ceb0b" },
            type_arguments: [],
            arguments: [],
          },
      signature: { type: "ed25519_signature", public_key: hex(1n), signature: hex(2n, 128) },
      events: [],
      timestamp: b.timestampUsec.toString(),
    };
  }
  i -= b.users.length;
  if (b.unknownTxn && i === 0)
    return { type: "some_future_transaction", ...common, mystery: { x: 1 } };
  if (index !== txnCount(b) - 1) throw new Error(`no transaction ${index} in block ${b.height}`);
  if (b.ending === "checkpoint") return { type: "state_checkpoint_transaction", ...common };
  return {
    type: "block_epilogue_transaction",
    ...common,
    block_end_info:
      b.ending === "epilogue"
        ? {
            block_gas_limit_reached: b.gasLimitReached,
            block_output_limit_reached: b.outputLimitReached,
            block_effective_block_gas_units: 24,
            block_approx_output_size: 5759,
          }
        : null,
    timestamp: b.timestampUsec.toString(),
  };
}

/** The API JSON of `GET /v1/blocks/by_height/{h}?with_transactions=true`, cut at `pageSize`. */
export function renderBlock(b: FakeBlock, pageSize: number): Record<string, unknown> {
  const n = Math.min(txnCount(b), pageSize);
  const transactions: Record<string, unknown>[] = [];
  for (let i = 0; i < n; i++) transactions.push(renderTxn(b, i));
  return {
    block_height: b.height.toString(),
    block_hash: hex(b.height * 104729n),
    block_timestamp: b.timestampUsec.toString(),
    first_version: b.firstVersion.toString(),
    last_version: b.lastVersion.toString(),
    transactions,
  };
}
