//! The ONNX protobuf messages, written by hand as `prost` derives.
//!
//! Transcribed from the official `onnx/onnx-ml.proto` (a superset of
//! `onnx.proto`: it adds [`type_proto::Opaque`]) and `onnx/onnx-data.proto`
//! ([`SequenceProto`], [`MapProto`], [`OptionalProto`], used by test data
//! sets) of onnx 1.22.0, which defines IR version 13. Field numbers, wire
//! types and packing follow those files exactly, so messages round-trip
//! byte-compatibly with what the reference implementation writes; no `protoc`
//! or build script is involved.
//!
//! Names follow `prost-build`'s conventions: a message's nested messages,
//! enums and oneofs live in a snake_case module named after it (for example
//! `TensorProto.DataType` is [`tensor_proto::DataType`]) and enum variants are
//! UpperCamelCase. Enum-typed fields are stored as `i32`, with `prost`'s typed
//! getters (`AttributeProto::r#type()`); fields declared `int32` that hold a
//! [`tensor_proto::DataType`] (`TensorProto.data_type`,
//! `TypeProto.Tensor.elem_type`, ...) convert with
//! `tensor_proto::DataType::try_from(i32)`.
//!
//! ONNX is proto2: its scalars are `optional`. Here they are plain values that
//! decode to the proto default (0, "", empty) when absent, which is what the
//! ONNX spec prescribes for every one of them; presence still matters for
//! message fields (`Option<_>`) and `oneof`s, and those keep it.
//!
//! Repeated scalars that onnx.proto does not mark `[packed = true]` are
//! declared `packed = "false"` so encoding matches proto2; decoding accepts
//! both encodings regardless.

/// `onnx.Version`: IR versions. `ModelProto.ir_version` holds one of these.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, ::prost::Enumeration)]
#[repr(i32)]
pub enum Version {
    /// proto3 placeholder; not a valid IR version.
    StartVersion = 0,
    /// IR version 1 (2017-10-10).
    IrVersion20171010 = 1,
    /// IR version 2 (2017-10-30): `AttributeProto.type` discriminator.
    IrVersion20171030 = 2,
    /// IR version 3 (2017-11-03): operator sets and node domains.
    IrVersion2017113 = 3,
    /// IR version 4 (2019-01-22): initializers need not be inputs; BFLOAT16.
    IrVersion2019122 = 4,
    /// IR version 5 (2019-03-18): quantization annotations.
    IrVersion2019318 = 5,
    /// IR version 6 (2019-09-19): sparse tensors.
    IrVersion2019919 = 6,
    /// IR version 7 (2020-05-08): training info.
    IrVersion202058 = 7,
    /// IR version 8 (2021-07-30): sparse/optional types, model-local functions.
    IrVersion2021730 = 8,
    /// IR version 9 (2023-05-05): function attribute defaults, float8 types.
    IrVersion202355 = 9,
    /// IR version 10 (2024-03-25): 4-bit ints, function overloads, metadata_props.
    IrVersion2024325 = 10,
    /// IR version 11 (2025-05-12): FLOAT4E2M1, multi-device messages.
    IrVersion20250512 = 11,
    /// IR version 12 (2025-08-26): FLOAT8E8M0.
    IrVersion20250826 = 12,
    /// IR version 13 (2025-11-06), the latest in onnx 1.22: UINT2, INT2.
    IrVersion = 13,
}

/// `onnx.OperatorStatus` (deprecated since IR 8; kept for completeness).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, ::prost::Enumeration)]
#[repr(i32)]
pub enum OperatorStatus {
    /// Experimental operator or function.
    Experimental = 0,
    /// Stable operator or function.
    Stable = 1,
}

/// A named attribute of a node: exactly one of the value fields is in use,
/// as said by `type`.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct AttributeProto {
    /// Attribute name; must be present.
    #[prost(string, tag = "1")]
    pub name: ::prost::alloc::string::String,
    /// If non-empty, this attribute refers to the parent function's attribute
    /// of this name and carries no value (only valid inside functions).
    #[prost(string, tag = "21")]
    pub ref_attr_name: ::prost::alloc::string::String,
    /// Human-readable documentation.
    #[prost(string, tag = "13")]
    pub doc_string: ::prost::alloc::string::String,
    /// Which value field below is in use ([`attribute_proto::AttributeType`]).
    #[prost(enumeration = "attribute_proto::AttributeType", tag = "20")]
    pub r#type: i32,
    /// FLOAT value.
    #[prost(float, tag = "2")]
    pub f: f32,
    /// INT value.
    #[prost(int64, tag = "3")]
    pub i: i64,
    /// STRING value (UTF-8 bytes).
    #[prost(bytes = "vec", tag = "4")]
    pub s: ::prost::alloc::vec::Vec<u8>,
    /// TENSOR value.
    #[prost(message, optional, tag = "5")]
    pub t: ::core::option::Option<TensorProto>,
    /// GRAPH value.
    #[prost(message, optional, tag = "6")]
    pub g: ::core::option::Option<GraphProto>,
    /// SPARSE_TENSOR value.
    #[prost(message, optional, tag = "22")]
    pub sparse_tensor: ::core::option::Option<SparseTensorProto>,
    /// TYPE_PROTO value.
    #[prost(message, optional, tag = "14")]
    pub tp: ::core::option::Option<TypeProto>,
    /// FLOATS value.
    #[prost(float, repeated, packed = "false", tag = "7")]
    pub floats: ::prost::alloc::vec::Vec<f32>,
    /// INTS value.
    #[prost(int64, repeated, packed = "false", tag = "8")]
    pub ints: ::prost::alloc::vec::Vec<i64>,
    /// STRINGS value (UTF-8 bytes each).
    #[prost(bytes = "vec", repeated, tag = "9")]
    pub strings: ::prost::alloc::vec::Vec<::prost::alloc::vec::Vec<u8>>,
    /// TENSORS value.
    #[prost(message, repeated, tag = "10")]
    pub tensors: ::prost::alloc::vec::Vec<TensorProto>,
    /// GRAPHS value.
    #[prost(message, repeated, tag = "11")]
    pub graphs: ::prost::alloc::vec::Vec<GraphProto>,
    /// SPARSE_TENSORS value.
    #[prost(message, repeated, tag = "23")]
    pub sparse_tensors: ::prost::alloc::vec::Vec<SparseTensorProto>,
    /// TYPE_PROTOS value.
    #[prost(message, repeated, tag = "15")]
    pub type_protos: ::prost::alloc::vec::Vec<TypeProto>,
}

/// Nested types of [`AttributeProto`].
pub mod attribute_proto {
    /// `AttributeProto.AttributeType`: which value field an attribute uses.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, ::prost::Enumeration)]
    #[repr(i32)]
    pub enum AttributeType {
        /// Not set (invalid for IR >= 2).
        Undefined = 0,
        /// `f`.
        Float = 1,
        /// `i`.
        Int = 2,
        /// `s`.
        String = 3,
        /// `t`.
        Tensor = 4,
        /// `g`.
        Graph = 5,
        /// `sparse_tensor`.
        SparseTensor = 11,
        /// `tp`.
        TypeProto = 13,
        /// `floats`.
        Floats = 6,
        /// `ints`.
        Ints = 7,
        /// `strings`.
        Strings = 8,
        /// `tensors`.
        Tensors = 9,
        /// `graphs`.
        Graphs = 10,
        /// `sparse_tensors`.
        SparseTensors = 12,
        /// `type_protos`.
        TypeProtos = 14,
    }

    impl AttributeType {
        /// The name used in the `.proto` file (`"FLOAT"`, `"INTS"`, ...).
        pub fn as_str_name(&self) -> &'static str {
            match self {
                Self::Undefined => "UNDEFINED",
                Self::Float => "FLOAT",
                Self::Int => "INT",
                Self::String => "STRING",
                Self::Tensor => "TENSOR",
                Self::Graph => "GRAPH",
                Self::SparseTensor => "SPARSE_TENSOR",
                Self::TypeProto => "TYPE_PROTO",
                Self::Floats => "FLOATS",
                Self::Ints => "INTS",
                Self::Strings => "STRINGS",
                Self::Tensors => "TENSORS",
                Self::Graphs => "GRAPHS",
                Self::SparseTensors => "SPARSE_TENSORS",
                Self::TypeProtos => "TYPE_PROTOS",
            }
        }
    }
}

/// Name, type and shape of a value (graph input, output or intermediate).
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct ValueInfoProto {
    /// Value name; must be present.
    #[prost(string, tag = "1")]
    pub name: ::prost::alloc::string::String,
    /// Type; must be present for the top-level graph's inputs and outputs.
    #[prost(message, optional, tag = "2")]
    pub r#type: ::core::option::Option<TypeProto>,
    /// Human-readable documentation.
    #[prost(string, tag = "3")]
    pub doc_string: ::prost::alloc::string::String,
    /// Named metadata; keys should be distinct.
    #[prost(message, repeated, tag = "4")]
    pub metadata_props: ::prost::alloc::vec::Vec<StringStringEntryProto>,
}

/// One operator application in a graph.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct NodeProto {
    /// Input value names; `""` marks an omitted optional input.
    #[prost(string, repeated, tag = "1")]
    pub input: ::prost::alloc::vec::Vec<::prost::alloc::string::String>,
    /// Output value names; `""` marks an omitted optional output.
    #[prost(string, repeated, tag = "2")]
    pub output: ::prost::alloc::vec::Vec<::prost::alloc::string::String>,
    /// Optional node name.
    #[prost(string, tag = "3")]
    pub name: ::prost::alloc::string::String,
    /// Operator name, e.g. `"Conv"`.
    #[prost(string, tag = "4")]
    pub op_type: ::prost::alloc::string::String,
    /// Operator set domain; `""` (or `"ai.onnx"`) is the default ONNX domain.
    #[prost(string, tag = "7")]
    pub domain: ::prost::alloc::string::String,
    /// Overload identifier, used only to pick a model-local function.
    #[prost(string, tag = "8")]
    pub overload: ::prost::alloc::string::String,
    /// Attributes.
    #[prost(message, repeated, tag = "5")]
    pub attribute: ::prost::alloc::vec::Vec<AttributeProto>,
    /// Human-readable documentation.
    #[prost(string, tag = "6")]
    pub doc_string: ::prost::alloc::string::String,
    /// Named metadata; keys should be distinct.
    #[prost(message, repeated, tag = "9")]
    pub metadata_props: ::prost::alloc::vec::Vec<StringStringEntryProto>,
    /// Multi-device annotations (IR 11).
    #[prost(message, repeated, tag = "10")]
    pub device_configurations: ::prost::alloc::vec::Vec<NodeDeviceConfigurationProto>,
}

/// An `int64 -> [int64]` map entry (cross-proto-version map pattern).
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct IntIntListEntryProto {
    /// Key.
    #[prost(int64, tag = "1")]
    pub key: i64,
    /// Values.
    #[prost(int64, repeated, packed = "false", tag = "2")]
    pub value: ::prost::alloc::vec::Vec<i64>,
}

/// Multi-device configuration of one node (IR 11).
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct NodeDeviceConfigurationProto {
    /// Name of a [`DeviceConfigurationProto`] of the model.
    #[prost(string, tag = "1")]
    pub configuration_id: ::prost::alloc::string::String,
    /// Sharding of the node's inputs and outputs.
    #[prost(message, repeated, tag = "2")]
    pub sharding_spec: ::prost::alloc::vec::Vec<ShardingSpecProto>,
    /// Pipeline stage of the node.
    #[prost(int32, tag = "3")]
    pub pipeline_stage: i32,
}

/// Sharding of one input or output tensor of a node (IR 11).
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct ShardingSpecProto {
    /// The node input or output being sharded.
    #[prost(string, tag = "1")]
    pub tensor_name: ::prost::alloc::string::String,
    /// Devices (or device groups) the tensor is sharded or replicated over.
    #[prost(int64, repeated, packed = "false", tag = "2")]
    pub device: ::prost::alloc::vec::Vec<i64>,
    /// Entries of `device` that stand for device groups, and their members.
    #[prost(message, repeated, tag = "3")]
    pub index_to_device_group_map: ::prost::alloc::vec::Vec<IntIntListEntryProto>,
    /// Per-axis sharding.
    #[prost(message, repeated, tag = "4")]
    pub sharded_dim: ::prost::alloc::vec::Vec<ShardedDimProto>,
}

/// Sharding of one axis of a tensor (IR 11).
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct ShardedDimProto {
    /// The axis, in `[-r, r-1]`.
    #[prost(int64, tag = "1")]
    pub axis: i64,
    /// How the axis is sharded (several entries for fused axes).
    #[prost(message, repeated, tag = "2")]
    pub simple_sharding: ::prost::alloc::vec::Vec<SimpleShardedDimProto>,
}

/// A dimension of N blocks divided into `num_shards` shards (IR 11).
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct SimpleShardedDimProto {
    /// Number of shards to split the dimension into.
    #[prost(int64, tag = "3")]
    pub num_shards: i64,
    /// The dimension being sharded.
    #[prost(oneof = "simple_sharded_dim_proto::Dim", tags = "1, 2")]
    pub dim: ::core::option::Option<simple_sharded_dim_proto::Dim>,
}

/// Nested types of [`SimpleShardedDimProto`].
pub mod simple_sharded_dim_proto {
    /// `oneof dim`: the dimension being sharded.
    #[derive(Clone, PartialEq, ::prost::Oneof)]
    pub enum Dim {
        /// A known size.
        #[prost(int64, tag = "1")]
        DimValue(i64),
        /// A symbolic size.
        #[prost(string, tag = "2")]
        DimParam(::prost::alloc::string::String),
    }
}

/// Training information: an initialization graph and a training step.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct TrainingInfoProto {
    /// Graph computing the initial values of trainable tensors.
    #[prost(message, optional, tag = "1")]
    pub initialization: ::core::option::Option<GraphProto>,
    /// One training-algorithm step, combined with the inference graph.
    #[prost(message, optional, tag = "2")]
    pub algorithm: ::core::option::Option<GraphProto>,
    /// Initializer name -> `initialization` output that sets it.
    #[prost(message, repeated, tag = "3")]
    pub initialization_binding: ::prost::alloc::vec::Vec<StringStringEntryProto>,
    /// Initializer name -> `algorithm` output that updates it.
    #[prost(message, repeated, tag = "4")]
    pub update_binding: ::prost::alloc::vec::Vec<StringStringEntryProto>,
}

/// The top-level container: metadata, operator-set imports and the main graph.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct ModelProto {
    /// IR version the model targets ([`Version`]); must be present.
    #[prost(int64, tag = "1")]
    pub ir_version: i64,
    /// Operator sets the model uses; at least one for the default domain.
    #[prost(message, repeated, tag = "8")]
    pub opset_import: ::prost::alloc::vec::Vec<OperatorSetIdProto>,
    /// Name of the tool that produced the model.
    #[prost(string, tag = "2")]
    pub producer_name: ::prost::alloc::string::String,
    /// Version of the tool that produced the model.
    #[prost(string, tag = "3")]
    pub producer_version: ::prost::alloc::string::String,
    /// Reverse-DNS domain of the model.
    #[prost(string, tag = "4")]
    pub domain: ::prost::alloc::string::String,
    /// Version of the model.
    #[prost(int64, tag = "5")]
    pub model_version: i64,
    /// Human-readable documentation.
    #[prost(string, tag = "6")]
    pub doc_string: ::prost::alloc::string::String,
    /// The main graph.
    #[prost(message, optional, tag = "7")]
    pub graph: ::core::option::Option<GraphProto>,
    /// Named metadata; keys should be distinct.
    #[prost(message, repeated, tag = "14")]
    pub metadata_props: ::prost::alloc::vec::Vec<StringStringEntryProto>,
    /// Training information.
    #[prost(message, repeated, tag = "20")]
    pub training_info: ::prost::alloc::vec::Vec<TrainingInfoProto>,
    /// Model-local functions; `(domain, name, overload)` is unique.
    #[prost(message, repeated, tag = "25")]
    pub functions: ::prost::alloc::vec::Vec<FunctionProto>,
    /// Multi-device target configurations (IR 11).
    #[prost(message, repeated, tag = "26")]
    pub configuration: ::prost::alloc::vec::Vec<DeviceConfigurationProto>,
}

/// A multi-device configuration of a model (IR 11).
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct DeviceConfigurationProto {
    /// Configuration name.
    #[prost(string, tag = "1")]
    pub name: ::prost::alloc::string::String,
    /// Number of devices.
    #[prost(int32, tag = "2")]
    pub num_devices: i32,
    /// Optional device names (`num_devices` of them if present).
    #[prost(string, repeated, tag = "3")]
    pub device: ::prost::alloc::vec::Vec<::prost::alloc::string::String>,
}

/// A `string -> string` map entry (cross-proto-version map pattern).
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct StringStringEntryProto {
    /// Key.
    #[prost(string, tag = "1")]
    pub key: ::prost::alloc::string::String,
    /// Value.
    #[prost(string, tag = "2")]
    pub value: ::prost::alloc::string::String,
}

/// Quantization parameters of a tensor (e.g. `SCALE_TENSOR`, `ZERO_POINT_TENSOR`).
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct TensorAnnotation {
    /// The annotated tensor.
    #[prost(string, tag = "1")]
    pub tensor_name: ::prost::alloc::string::String,
    /// Parameter key -> name of the tensor holding it.
    #[prost(message, repeated, tag = "2")]
    pub quant_parameter_tensor_names: ::prost::alloc::vec::Vec<StringStringEntryProto>,
}

/// A graph: topologically sorted nodes, initializers, inputs and outputs.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct GraphProto {
    /// Nodes, sorted topologically.
    #[prost(message, repeated, tag = "1")]
    pub node: ::prost::alloc::vec::Vec<NodeProto>,
    /// Graph name.
    #[prost(string, tag = "2")]
    pub name: ::prost::alloc::string::String,
    /// Named constant tensors; a name may also appear among the inputs.
    #[prost(message, repeated, tag = "5")]
    pub initializer: ::prost::alloc::vec::Vec<TensorProto>,
    /// Initializers stored in sparse form.
    #[prost(message, repeated, tag = "15")]
    pub sparse_initializer: ::prost::alloc::vec::Vec<SparseTensorProto>,
    /// Human-readable documentation.
    #[prost(string, tag = "10")]
    pub doc_string: ::prost::alloc::string::String,
    /// Graph inputs.
    #[prost(message, repeated, tag = "11")]
    pub input: ::prost::alloc::vec::Vec<ValueInfoProto>,
    /// Graph outputs.
    #[prost(message, repeated, tag = "12")]
    pub output: ::prost::alloc::vec::Vec<ValueInfoProto>,
    /// Type information for intermediate values (optional, names distinct).
    #[prost(message, repeated, tag = "13")]
    pub value_info: ::prost::alloc::vec::Vec<ValueInfoProto>,
    /// Tensor -> quantization-parameter-tensor mappings.
    #[prost(message, repeated, tag = "14")]
    pub quantization_annotation: ::prost::alloc::vec::Vec<TensorAnnotation>,
    /// Named metadata; keys should be distinct.
    #[prost(message, repeated, tag = "16")]
    pub metadata_props: ::prost::alloc::vec::Vec<StringStringEntryProto>,
}

/// A serialized dense tensor. Elements are row-major, in exactly one of the
/// `*_data` fields or in `raw_data` (little-endian, fixed width), or external.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct TensorProto {
    /// Shape.
    #[prost(int64, repeated, packed = "false", tag = "1")]
    pub dims: ::prost::alloc::vec::Vec<i64>,
    /// Element type, a [`tensor_proto::DataType`] value.
    #[prost(int32, tag = "2")]
    pub data_type: i32,
    /// The chunk stored here, for tensors split in segments.
    #[prost(message, optional, tag = "3")]
    pub segment: ::core::option::Option<tensor_proto::Segment>,
    /// FLOAT and COMPLEX64 (interleaved real, imaginary) elements.
    #[prost(float, repeated, tag = "4")]
    pub float_data: ::prost::alloc::vec::Vec<f32>,
    /// INT32, narrower ints, BOOL, and 16/8/4/2-bit floats as bit patterns
    /// (4-bit: two per value, 2-bit: four per value, low bits first).
    #[prost(int32, repeated, tag = "5")]
    pub int32_data: ::prost::alloc::vec::Vec<i32>,
    /// STRING elements (UTF-8 bytes each).
    #[prost(bytes = "vec", repeated, tag = "6")]
    pub string_data: ::prost::alloc::vec::Vec<::prost::alloc::vec::Vec<u8>>,
    /// INT64 elements.
    #[prost(int64, repeated, tag = "7")]
    pub int64_data: ::prost::alloc::vec::Vec<i64>,
    /// Tensor name (required for initializers).
    #[prost(string, tag = "8")]
    pub name: ::prost::alloc::string::String,
    /// Human-readable documentation.
    #[prost(string, tag = "12")]
    pub doc_string: ::prost::alloc::string::String,
    /// Elements as raw little-endian bytes (any type but STRING); BOOL is one
    /// byte each, 4-bit types two per byte, 2-bit types four per byte.
    #[prost(bytes = "vec", tag = "9")]
    pub raw_data: ::prost::alloc::vec::Vec<u8>,
    /// External storage description: `location`, `offset`, `length`, `checksum`.
    #[prost(message, repeated, tag = "13")]
    pub external_data: ::prost::alloc::vec::Vec<StringStringEntryProto>,
    /// Where the data lives ([`tensor_proto::DataLocation`]).
    #[prost(enumeration = "tensor_proto::DataLocation", tag = "14")]
    pub data_location: i32,
    /// DOUBLE and COMPLEX128 (interleaved real, imaginary) elements.
    #[prost(double, repeated, tag = "10")]
    pub double_data: ::prost::alloc::vec::Vec<f64>,
    /// UINT32 and UINT64 elements.
    #[prost(uint64, repeated, tag = "11")]
    pub uint64_data: ::prost::alloc::vec::Vec<u64>,
    /// Named metadata; keys should be distinct.
    #[prost(message, repeated, tag = "16")]
    pub metadata_props: ::prost::alloc::vec::Vec<StringStringEntryProto>,
}

/// Nested types of [`TensorProto`].
pub mod tensor_proto {
    /// A chunk `[begin, end)` of a segmented tensor.
    #[derive(Clone, Copy, PartialEq, ::prost::Message)]
    pub struct Segment {
        /// First element index.
        #[prost(int64, tag = "1")]
        pub begin: i64,
        /// One past the last element index.
        #[prost(int64, tag = "2")]
        pub end: i64,
    }

    /// `TensorProto.DataType`: tensor element types.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, ::prost::Enumeration)]
    #[repr(i32)]
    pub enum DataType {
        /// Not set; invalid in a tensor.
        Undefined = 0,
        /// IEEE 754 binary32.
        Float = 1,
        /// `u8`.
        Uint8 = 2,
        /// `i8`.
        Int8 = 3,
        /// `u16`.
        Uint16 = 4,
        /// `i16`.
        Int16 = 5,
        /// `i32`.
        Int32 = 6,
        /// `i64`.
        Int64 = 7,
        /// UTF-8 string.
        String = 8,
        /// Boolean.
        Bool = 9,
        /// IEEE 754 binary16.
        Float16 = 10,
        /// IEEE 754 binary64.
        Double = 11,
        /// `u32`.
        Uint32 = 12,
        /// `u64`.
        Uint64 = 13,
        /// Complex with binary32 real and imaginary parts.
        Complex64 = 14,
        /// Complex with binary64 real and imaginary parts.
        Complex128 = 15,
        /// bfloat16: binary32 truncated to 16 bits.
        Bfloat16 = 16,
        /// float8 e4m3, NaN but no infinity.
        Float8e4m3fn = 17,
        /// float8 e4m3, NaN but no infinity or negative zero.
        Float8e4m3fnuz = 18,
        /// float8 e5m2, IEEE-like.
        Float8e5m2 = 19,
        /// float8 e5m2, NaN but no infinity or negative zero.
        Float8e5m2fnuz = 20,
        /// Unsigned 4-bit integer, two per byte.
        Uint4 = 21,
        /// Signed 4-bit integer, two per byte.
        Int4 = 22,
        /// float4 e2m1, two per byte.
        Float4e2m1 = 23,
        /// float8 e8m0, the MX scale type.
        Float8e8m0 = 24,
        /// Unsigned 2-bit integer, four per byte.
        Uint2 = 25,
        /// Signed 2-bit integer, four per byte.
        Int2 = 26,
    }

    impl DataType {
        /// The name used in the `.proto` file (`"FLOAT"`, `"INT64"`, ...).
        pub fn as_str_name(&self) -> &'static str {
            match self {
                Self::Undefined => "UNDEFINED",
                Self::Float => "FLOAT",
                Self::Uint8 => "UINT8",
                Self::Int8 => "INT8",
                Self::Uint16 => "UINT16",
                Self::Int16 => "INT16",
                Self::Int32 => "INT32",
                Self::Int64 => "INT64",
                Self::String => "STRING",
                Self::Bool => "BOOL",
                Self::Float16 => "FLOAT16",
                Self::Double => "DOUBLE",
                Self::Uint32 => "UINT32",
                Self::Uint64 => "UINT64",
                Self::Complex64 => "COMPLEX64",
                Self::Complex128 => "COMPLEX128",
                Self::Bfloat16 => "BFLOAT16",
                Self::Float8e4m3fn => "FLOAT8E4M3FN",
                Self::Float8e4m3fnuz => "FLOAT8E4M3FNUZ",
                Self::Float8e5m2 => "FLOAT8E5M2",
                Self::Float8e5m2fnuz => "FLOAT8E5M2FNUZ",
                Self::Uint4 => "UINT4",
                Self::Int4 => "INT4",
                Self::Float4e2m1 => "FLOAT4E2M1",
                Self::Float8e8m0 => "FLOAT8E8M0",
                Self::Uint2 => "UINT2",
                Self::Int2 => "INT2",
            }
        }
    }

    /// `TensorProto.DataLocation`: where a tensor's data is stored.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, ::prost::Enumeration)]
    #[repr(i32)]
    pub enum DataLocation {
        /// In this message: `raw_data` if set, else the typed field.
        Default = 0,
        /// In an external file described by `external_data`.
        External = 1,
    }
}

/// A sparse tensor: `values` (shape `[NNZ]`) at `indices` (shape `[NNZ, rank]`
/// or linearized `[NNZ]`, ascending) in a dense tensor of shape `dims`.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct SparseTensorProto {
    /// Non-default values; its name names the sparse tensor.
    #[prost(message, optional, tag = "1")]
    pub values: ::core::option::Option<TensorProto>,
    /// Indices of the values.
    #[prost(message, optional, tag = "2")]
    pub indices: ::core::option::Option<TensorProto>,
    /// Dense shape.
    #[prost(int64, repeated, packed = "false", tag = "3")]
    pub dims: ::prost::alloc::vec::Vec<i64>,
}

/// A tensor shape: each dimension is a number, a symbol, or unknown.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct TensorShapeProto {
    /// The dimensions; an empty list is a scalar.
    #[prost(message, repeated, tag = "1")]
    pub dim: ::prost::alloc::vec::Vec<tensor_shape_proto::Dimension>,
}

/// Nested types of [`TensorShapeProto`].
pub mod tensor_shape_proto {
    /// One dimension of a shape.
    #[derive(Clone, PartialEq, ::prost::Message)]
    pub struct Dimension {
        /// Optional standard denotation (e.g. `DATA_BATCH`).
        #[prost(string, tag = "3")]
        pub denotation: ::prost::alloc::string::String,
        /// The size: known, symbolic, or (`None`) unknown.
        #[prost(oneof = "dimension::Value", tags = "1, 2")]
        pub value: ::core::option::Option<dimension::Value>,
    }

    /// Nested types of [`Dimension`].
    pub mod dimension {
        /// `oneof value`: a dimension's size.
        #[derive(Clone, PartialEq, ::prost::Oneof)]
        pub enum Value {
            /// A known size.
            #[prost(int64, tag = "1")]
            DimValue(i64),
            /// A symbolic size.
            #[prost(string, tag = "2")]
            DimParam(::prost::alloc::string::String),
        }
    }
}

/// The type of a value: tensor, sequence, map, optional, sparse tensor or opaque.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct TypeProto {
    /// Optional standard type denotation (e.g. `IMAGE`).
    #[prost(string, tag = "6")]
    pub denotation: ::prost::alloc::string::String,
    /// The type itself.
    #[prost(oneof = "type_proto::Value", tags = "1, 4, 5, 9, 8, 7")]
    pub value: ::core::option::Option<type_proto::Value>,
}

/// Nested types of [`TypeProto`].
pub mod type_proto {
    /// A dense tensor type.
    #[derive(Clone, PartialEq, ::prost::Message)]
    pub struct Tensor {
        /// Element type, a [`super::tensor_proto::DataType`] value (not UNDEFINED).
        #[prost(int32, tag = "1")]
        pub elem_type: i32,
        /// Shape; `None` means the rank is unknown.
        #[prost(message, optional, tag = "2")]
        pub shape: ::core::option::Option<super::TensorShapeProto>,
    }

    /// A sequence type.
    #[derive(Clone, PartialEq, ::prost::Message)]
    pub struct Sequence {
        /// Element type.
        #[prost(message, optional, boxed, tag = "1")]
        pub elem_type: ::core::option::Option<::prost::alloc::boxed::Box<super::TypeProto>>,
    }

    /// A map type.
    #[derive(Clone, PartialEq, ::prost::Message)]
    pub struct Map {
        /// Key type, an integral or STRING [`super::tensor_proto::DataType`] value.
        #[prost(int32, tag = "1")]
        pub key_type: i32,
        /// Value type.
        #[prost(message, optional, boxed, tag = "2")]
        pub value_type: ::core::option::Option<::prost::alloc::boxed::Box<super::TypeProto>>,
    }

    /// An optional type (a tensor, sequence or map that may be absent).
    #[derive(Clone, PartialEq, ::prost::Message)]
    pub struct Optional {
        /// Wrapped type.
        #[prost(message, optional, boxed, tag = "1")]
        pub elem_type: ::core::option::Option<::prost::alloc::boxed::Box<super::TypeProto>>,
    }

    /// A sparse tensor type.
    #[derive(Clone, PartialEq, ::prost::Message)]
    pub struct SparseTensor {
        /// Element type, a [`super::tensor_proto::DataType`] value (not UNDEFINED).
        #[prost(int32, tag = "1")]
        pub elem_type: i32,
        /// Shape; `None` means the rank is unknown.
        #[prost(message, optional, tag = "2")]
        pub shape: ::core::option::Option<super::TensorShapeProto>,
    }

    /// An opaque type (ONNX-ML).
    #[derive(Clone, PartialEq, ::prost::Message)]
    pub struct Opaque {
        /// Domain; defaults to the model's.
        #[prost(string, tag = "1")]
        pub domain: ::prost::alloc::string::String,
        /// Name.
        #[prost(string, tag = "2")]
        pub name: ::prost::alloc::string::String,
    }

    /// `oneof value`: which kind of type.
    #[derive(Clone, PartialEq, ::prost::Oneof)]
    pub enum Value {
        /// A tensor.
        #[prost(message, tag = "1")]
        TensorType(Tensor),
        /// A sequence.
        #[prost(message, tag = "4")]
        SequenceType(Sequence),
        /// A map.
        #[prost(message, tag = "5")]
        MapType(Map),
        /// An optional.
        #[prost(message, tag = "9")]
        OptionalType(Optional),
        /// A sparse tensor.
        #[prost(message, tag = "8")]
        SparseTensorType(SparseTensor),
        /// An opaque type (ONNX-ML).
        #[prost(message, tag = "7")]
        OpaqueType(Opaque),
    }
}

/// An operator set reference: `(domain, version)`.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct OperatorSetIdProto {
    /// Domain; `""` is the default ONNX operator set.
    #[prost(string, tag = "1")]
    pub domain: ::prost::alloc::string::String,
    /// Operator set version.
    #[prost(int64, tag = "2")]
    pub version: i64,
}

/// A model-local function: a named subgraph usable as an operator.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct FunctionProto {
    /// Function name (like `NodeProto.op_type`).
    #[prost(string, tag = "1")]
    pub name: ::prost::alloc::string::String,
    /// Formal input names.
    #[prost(string, repeated, tag = "4")]
    pub input: ::prost::alloc::vec::Vec<::prost::alloc::string::String>,
    /// Formal output names.
    #[prost(string, repeated, tag = "5")]
    pub output: ::prost::alloc::vec::Vec<::prost::alloc::string::String>,
    /// Names of attributes without default values.
    #[prost(string, repeated, tag = "6")]
    pub attribute: ::prost::alloc::vec::Vec<::prost::alloc::string::String>,
    /// Attributes with default values.
    #[prost(message, repeated, tag = "11")]
    pub attribute_proto: ::prost::alloc::vec::Vec<AttributeProto>,
    /// The function body.
    #[prost(message, repeated, tag = "7")]
    pub node: ::prost::alloc::vec::Vec<NodeProto>,
    /// Human-readable documentation.
    #[prost(string, tag = "8")]
    pub doc_string: ::prost::alloc::string::String,
    /// Operator sets the body uses.
    #[prost(message, repeated, tag = "9")]
    pub opset_import: ::prost::alloc::vec::Vec<OperatorSetIdProto>,
    /// Function domain.
    #[prost(string, tag = "10")]
    pub domain: ::prost::alloc::string::String,
    /// Overload identifier; `(domain, name, overload)` is unique in a model.
    #[prost(string, tag = "13")]
    pub overload: ::prost::alloc::string::String,
    /// Type information for values in the body.
    #[prost(message, repeated, tag = "12")]
    pub value_info: ::prost::alloc::vec::Vec<ValueInfoProto>,
    /// Named metadata; keys should be distinct.
    #[prost(message, repeated, tag = "14")]
    pub metadata_props: ::prost::alloc::vec::Vec<StringStringEntryProto>,
}

// ---------------------------------------------------------------------------
// onnx-data.proto: non-tensor values, as stored in test data sets.
// ---------------------------------------------------------------------------

/// A sequence value (`onnx-data.proto`); the elements are in the field that
/// `elem_type` names.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct SequenceProto {
    /// Value name.
    #[prost(string, tag = "1")]
    pub name: ::prost::alloc::string::String,
    /// Kind of the elements, a [`sequence_proto::DataType`] value.
    #[prost(int32, tag = "2")]
    pub elem_type: i32,
    /// Elements, when `elem_type` is TENSOR.
    #[prost(message, repeated, tag = "3")]
    pub tensor_values: ::prost::alloc::vec::Vec<TensorProto>,
    /// Elements, when `elem_type` is SPARSE_TENSOR.
    #[prost(message, repeated, tag = "4")]
    pub sparse_tensor_values: ::prost::alloc::vec::Vec<SparseTensorProto>,
    /// Elements, when `elem_type` is SEQUENCE.
    #[prost(message, repeated, tag = "5")]
    pub sequence_values: ::prost::alloc::vec::Vec<SequenceProto>,
    /// Elements, when `elem_type` is MAP.
    #[prost(message, repeated, tag = "6")]
    pub map_values: ::prost::alloc::vec::Vec<MapProto>,
    /// Elements, when `elem_type` is OPTIONAL.
    #[prost(message, repeated, tag = "7")]
    pub optional_values: ::prost::alloc::vec::Vec<OptionalProto>,
}

/// Nested types of [`SequenceProto`].
pub mod sequence_proto {
    /// `SequenceProto.DataType`: kind of a sequence's elements.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, ::prost::Enumeration)]
    #[repr(i32)]
    pub enum DataType {
        /// Not set.
        Undefined = 0,
        /// Dense tensors.
        Tensor = 1,
        /// Sparse tensors.
        SparseTensor = 2,
        /// Sequences.
        Sequence = 3,
        /// Maps.
        Map = 4,
        /// Optionals.
        Optional = 5,
    }
}

/// A map value (`onnx-data.proto`): keys in `keys` or `string_keys`, values
/// in the sequence `values`, pairwise.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct MapProto {
    /// Value name.
    #[prost(string, tag = "1")]
    pub name: ::prost::alloc::string::String,
    /// Key type, an integral or STRING [`tensor_proto::DataType`] value.
    #[prost(int32, tag = "2")]
    pub key_type: i32,
    /// Integral keys.
    #[prost(int64, repeated, packed = "false", tag = "3")]
    pub keys: ::prost::alloc::vec::Vec<i64>,
    /// String keys.
    #[prost(bytes = "vec", repeated, tag = "4")]
    pub string_keys: ::prost::alloc::vec::Vec<::prost::alloc::vec::Vec<u8>>,
    /// Values, one per key.
    #[prost(message, optional, tag = "5")]
    pub values: ::core::option::Option<SequenceProto>,
}

/// An optional value (`onnx-data.proto`): at most one of the value fields is set.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct OptionalProto {
    /// Value name.
    #[prost(string, tag = "1")]
    pub name: ::prost::alloc::string::String,
    /// Kind of the wrapped value, a [`optional_proto::DataType`] value.
    #[prost(int32, tag = "2")]
    pub elem_type: i32,
    /// Wrapped value, when `elem_type` is TENSOR.
    #[prost(message, optional, tag = "3")]
    pub tensor_value: ::core::option::Option<TensorProto>,
    /// Wrapped value, when `elem_type` is SPARSE_TENSOR.
    #[prost(message, optional, tag = "4")]
    pub sparse_tensor_value: ::core::option::Option<SparseTensorProto>,
    /// Wrapped value, when `elem_type` is SEQUENCE.
    #[prost(message, optional, tag = "5")]
    pub sequence_value: ::core::option::Option<SequenceProto>,
    /// Wrapped value, when `elem_type` is MAP.
    #[prost(message, optional, tag = "6")]
    pub map_value: ::core::option::Option<MapProto>,
    /// Wrapped value, when `elem_type` is OPTIONAL.
    #[prost(message, optional, boxed, tag = "7")]
    pub optional_value: ::core::option::Option<::prost::alloc::boxed::Box<OptionalProto>>,
}

/// Nested types of [`OptionalProto`].
pub mod optional_proto {
    /// `OptionalProto.DataType`: kind of the wrapped value.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, ::prost::Enumeration)]
    #[repr(i32)]
    pub enum DataType {
        /// Not set.
        Undefined = 0,
        /// A dense tensor.
        Tensor = 1,
        /// A sparse tensor.
        SparseTensor = 2,
        /// A sequence.
        Sequence = 3,
        /// A map.
        Map = 4,
        /// An optional.
        Optional = 5,
    }
}
