// The node source's answer parse, side by side in one run: what `attemptRequest` does with a
// 200 body (pruneUnread, checkJsonShape with the counts of a 64 MiB cap, then JSON.parse)
// against JSON.parse alone, on
// - a block answer of 30 user transactions rendered like a node's (events, write set, hex);
// - the same whose transactions pass a vector<vector<u64>> argument (all arrays);
// - a body of one object with millions of keys, which the counts refuse in one pass.

import { checkJsonShape } from "../../dist/core/checkJsonShape.js";
import { answerLimits } from "../../dist/sources/aptosRest/attemptRequest.js";
import { pruneUnread } from "../../dist/sources/aptosRest/pruneUnread.js";
import { runCases } from "../lib.js";

const LIMITS = answerLimits(64 * 1024 * 1024);
const boundedParse = (body) => {
  const text = pruneUnread(body);
  checkJsonShape(text, LIMITS);
  return JSON.parse(text);
};

const hex = (bytes, seed) => `0x${seed.toString(16).padStart(2 * bytes, "7")}`;

/** A user transaction as a node renders it: 4 resource changes, 3 events. */
function userTransaction(version) {
  const guid = (n) => ({ id: { addr: hex(32, version + n), creation_num: String(n) } });
  return {
    version: String(version),
    hash: hex(32, version),
    state_change_hash: hex(32, version + 1),
    event_root_hash: hex(32, version + 2),
    state_checkpoint_hash: null,
    gas_used: "7",
    success: true,
    vm_status: "Executed successfully",
    accumulator_root_hash: hex(32, version + 3),
    changes: [0, 1, 2, 3].map((i) => ({
      address: hex(32, version * 4 + i),
      state_key_hash: hex(32, version * 8 + i),
      data: {
        type: "0x1::coin::CoinStore<0x1::aptos_coin::AptosCoin>",
        data: {
          coin: { value: String(123_456 + i) },
          deposit_events: { counter: "5", guid: guid(2) },
          frozen: false,
          withdraw_events: { counter: "3", guid: guid(3) },
        },
      },
      type: "write_resource",
    })),
    sender: hex(32, version + 4),
    sequence_number: "12",
    max_gas_amount: "2000",
    gas_unit_price: "100",
    expiration_timestamp_secs: "1700000000",
    payload: {
      function: "0x1::aptos_account::transfer",
      type_arguments: [],
      arguments: [hex(32, version + 5), "1000"],
      type: "entry_function_payload",
    },
    signature: { public_key: hex(32, 9), signature: hex(64, version), type: "ed25519_signature" },
    events: [0, 1, 2].map((i) => ({
      guid: { creation_number: String(i + 2), account_address: hex(32, version + i) },
      sequence_number: String(i),
      type: "0x1::coin::WithdrawEvent",
      data: { amount: "1000" },
    })),
    timestamp: "1700000000000000",
    type: "user_transaction",
  };
}

export default async function parse({ quick }) {
  const block = JSON.stringify({
    block_height: "1042",
    first_version: "5000",
    last_version: "5029",
    transactions: Array.from({ length: 30 }, (_, i) => userTransaction(5000 + i)),
  });
  // The same block whose transactions each pass a vector<vector<u64>> of 20,000 empty vectors
  // (about 60 KB of `[[],[],...]`, within a transaction's 64 KB): ordinary, and all arrays.
  const nested = JSON.stringify({
    block_height: "1042",
    first_version: "5000",
    last_version: "5029",
    transactions: Array.from({ length: 30 }, (_, i) => {
      const t = userTransaction(5000 + i);
      t.payload.arguments = [Array(20_000).fill([])];
      return t;
    }),
  });
  const keys = quick ? 200_000 : 1_000_000;
  const bomb = `{${Array.from({ length: keys }, (_, i) => `"k${i}":0`).join(",")}}`;
  const refuse = () => {
    try {
      boundedParse(bomb);
    } catch {
      return;
    }
    throw new Error("the key bomb was not refused");
  };
  refuse();
  let sink = 0;
  /** Both parses of a block answer, side by side. */
  const sideBySide = (text) =>
    runCases(
      {
        "bounded parse": () => {
          sink += boundedParse(text).transactions.length;
        },
        "JSON.parse alone (baseline)": () => {
          sink += JSON.parse(text).transactions.length;
        },
      },
      { quick },
    );
  const blockHz = await sideBySide(block);
  const nestedHz = await sideBySide(nested);
  const bombHz = await runCases(
    {
      "bounded parse refuses": refuse,
      "JSON.parse builds it (baseline)": () => {
        sink += JSON.parse(bomb).k0;
      },
    },
    { quick },
  );
  if (sink === -1) console.log(sink);
  const mbps = (hz, bytes) => (hz * bytes) / 1e6;
  const ms = (hz) => 1000 / hz;
  const ours = blockHz["bounded parse"];
  const base = blockHz["JSON.parse alone (baseline)"];
  return {
    title: "Node answers: bounded parse against JSON.parse",
    rows: [
      {
        name: `block answer of 30 user transactions (${(block.length / 1024).toFixed(0)} KiB)`,
        ours: mbps(ours.hz, block.length),
        baseline: mbps(base.hz, block.length),
        unit: "MB/s",
        ratio: ours.hz / base.hz,
        kind: "overhead",
        note: `dropping what is never read, counting the rest, parsing it; <1 = slower than JSON.parse alone; ±${ours.rme.toFixed(1)} %`,
      },
      {
        name: `block answer of 30 transactions passing vector<vector<u64>> (${(nested.length / 1e6).toFixed(1)} MB)`,
        ours: mbps(nestedHz["bounded parse"].hz, nested.length),
        baseline: mbps(nestedHz["JSON.parse alone (baseline)"].hz, nested.length),
        unit: "MB/s",
        ratio: nestedHz["bounded parse"].hz / nestedHz["JSON.parse alone (baseline)"].hz,
        note: "600,000 arrays in the arguments, dropped unparsed; >1 = ours faster",
      },
      {
        name: `one object of ${keys.toLocaleString("en-US")} keys (${(bomb.length / 1e6).toFixed(1)} MB)`,
        ours: ms(bombHz["bounded parse refuses"].hz),
        baseline: ms(bombHz["JSON.parse builds it (baseline)"].hz),
        unit: "ms",
        ratio: bombHz["bounded parse refuses"].hz / bombHz["JSON.parse builds it (baseline)"].hz,
        note: "refused after a pass over the text (pruneUnread) and over the first 4096 keys, against building the object; >1 = ours faster",
      },
    ],
  };
}
