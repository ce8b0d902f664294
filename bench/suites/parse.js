// The node source's answer parse, side by side in one run: what `attemptRequest` does with a
// 200 body (parseJsonLossless with the object, member and per-object member counts of a 64 MiB
// cap) against JSON.parse alone, on
// - a block answer of 30 user transactions rendered like a node's (events, write set, hex);
// - a body of one object with millions of keys, which the counts refuse in one pass.

import { parseJsonLossless } from "../../dist/core/parseJsonLossless.js";
import {
  BYTES_PER_CONTAINER,
  BYTES_PER_MEMBER,
  MAX_OBJECT_MEMBERS,
} from "../../dist/sources/aptosRest/attemptRequest.js";
import { runCases } from "../lib.js";

const CAP = 64 * 1024 * 1024;
const LIMITS = {
  maxContainers: Math.floor(CAP / BYTES_PER_CONTAINER),
  maxMembers: Math.floor(CAP / BYTES_PER_MEMBER),
  maxObjectMembers: MAX_OBJECT_MEMBERS,
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
  const keys = quick ? 200_000 : 1_000_000;
  const bomb = `{${Array.from({ length: keys }, (_, i) => `"k${i}":0`).join(",")}}`;
  const refuse = () => {
    try {
      parseJsonLossless(bomb, LIMITS);
    } catch {
      return;
    }
    throw new Error("the key bomb was not refused");
  };
  refuse();
  let sink = 0;
  const blockHz = await runCases(
    {
      "bounded parse": () => {
        sink += parseJsonLossless(block, LIMITS).transactions.length;
      },
      "JSON.parse alone (baseline)": () => {
        sink += JSON.parse(block).transactions.length;
      },
    },
    { quick },
  );
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
        note: `the cost of counting before the parse; <1 = slower than JSON.parse alone; ±${ours.rme.toFixed(1)} %`,
      },
      {
        name: `one object of ${keys.toLocaleString("en-US")} keys (${(bomb.length / 1e6).toFixed(1)} MB)`,
        ours: ms(bombHz["bounded parse refuses"].hz),
        baseline: ms(bombHz["JSON.parse builds it (baseline)"].hz),
        unit: "ms",
        ratio: bombHz["bounded parse refuses"].hz / bombHz["JSON.parse builds it (baseline)"].hz,
        note: "refused after one pass over the first 4096 keys, against building the object; >1 = ours faster",
      },
    ],
  };
}
