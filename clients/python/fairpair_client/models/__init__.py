"""Contains all the data models used in inputs/outputs"""

from .alt_test import AltTest
from .anchored_baseline_win_rate import AnchoredBaselineWinRate
from .anchored_ratings import AnchoredRatings
from .anchored_ratings_reason_type_0 import AnchoredRatingsReasonType0
from .anchored_win_rate import AnchoredWinRate
from .anchored_win_rate_tier import AnchoredWinRateTier
from .baseline_pin import BaselinePin
from .baseline_win_rate import BaselineWinRate
from .baseline_win_rate_reason_type_0 import BaselineWinRateReasonType0
from .batch_counts import BatchCounts
from .batch_create import BatchCreate
from .batch_create_mode import BatchCreateMode
from .batch_item_in import BatchItemIn
from .batch_item_list import BatchItemList
from .batch_item_read import BatchItemRead
from .batch_item_read_kind import BatchItemReadKind
from .batch_item_read_status import BatchItemReadStatus
from .batch_list import BatchList
from .batch_read import BatchRead
from .batch_read_mode import BatchReadMode
from .batch_read_status import BatchReadStatus
from .bias_report import BiasReport
from .calibration_read import CalibrationRead
from .call_counts import CallCounts
from .call_counts_by_error_kind import CallCountsByErrorKind
from .call_counts_tier import CallCountsTier
from .call_read import CallRead
from .call_read_confidence_source_type_0 import CallReadConfidenceSourceType0
from .call_read_display_order import CallReadDisplayOrder
from .call_read_labels import CallReadLabels
from .call_read_mapped_winner_type_0 import CallReadMappedWinnerType0
from .call_read_pick_type_0 import CallReadPickType0
from .canary_create import CanaryCreate
from .canary_drift_read import CanaryDriftRead
from .canary_drift_read_trigger import CanaryDriftReadTrigger
from .canary_judge_read import CanaryJudgeRead
from .canary_list import CanaryList
from .canary_read import CanaryRead
from .canary_read_selector import CanaryReadSelector
from .canary_run_create import CanaryRunCreate
from .canary_run_list import CanaryRunList
from .canary_run_read import CanaryRunRead
from .canary_run_read_status import CanaryRunReadStatus
from .canary_run_read_trigger import CanaryRunReadTrigger
from .card import Card
from .card_read import CardRead
from .card_run_started import CardRunStarted
from .compare_request import CompareRequest
from .compare_request_self_preference_type_0 import CompareRequestSelfPreferenceType0
from .compare_request_tags import CompareRequestTags
from .comparison_list import ComparisonList
from .comparison_read import ComparisonRead
from .comparison_read_confidence_source_type_0 import ComparisonReadConfidenceSourceType0
from .comparison_read_status import ComparisonReadStatus
from .comparison_read_tags import ComparisonReadTags
from .comparison_read_winner_type_0 import ComparisonReadWinnerType0
from .comparisons_deleted import ComparisonsDeleted
from .confidence_section import ConfidenceSection
from .confidence_section_by_source import ConfidenceSectionBySource
from .confidence_section_tier import ConfidenceSectionTier
from .consistency_section import ConsistencySection
from .consistency_section_reason_type_0 import ConsistencySectionReasonType0
from .consistency_section_tier import ConsistencySectionTier
from .criterion_in import CriterionIn
from .drift_acknowledgement import DriftAcknowledgement
from .excluded_read import ExcludedRead
from .excluded_reviewer_read import ExcludedReviewerRead
from .experiment_create import ExperimentCreate
from .experiment_item_in import ExperimentItemIn
from .experiment_list import ExperimentList
from .experiment_read import ExperimentRead
from .experiment_read_decision_type_0 import ExperimentReadDecisionType0
from .experiment_read_status import ExperimentReadStatus
from .experiment_win_rate import ExperimentWinRate
from .fragility import Fragility
from .get_alt_test_origin import GetAltTestOrigin
from .get_bias_report_bucket import GetBiasReportBucket
from .get_bias_report_origin import GetBiasReportOrigin
from .get_leaderboard_origin import GetLeaderboardOrigin
from .get_win_rates_origin import GetWinRatesOrigin
from .gold_read import GoldRead
from .gold_read_votes import GoldReadVotes
from .gold_read_winner_type_0 import GoldReadWinnerType0
from .healthz_response_healthz import HealthzResponseHealthz
from .human_agreement_section import HumanAgreementSection
from .human_agreement_section_tier import HumanAgreementSectionTier
from .human_baseline_section import HumanBaselineSection
from .human_baseline_section_confusion import HumanBaselineSectionConfusion
from .human_baseline_section_confusion_additional_property import HumanBaselineSectionConfusionAdditionalProperty
from .human_win_rate import HumanWinRate
from .human_win_rate_tier import HumanWinRateTier
from .item_error import ItemError
from .judge_alt_test import JudgeAltTest
from .judge_alt_test_reason_type_0 import JudgeAltTestReasonType0
from .judge_create import JudgeCreate
from .judge_create_azure_auth import JudgeCreateAzureAuth
from .judge_create_batch_api import JudgeCreateBatchApi
from .judge_create_provider import JudgeCreateProvider
from .judge_create_reasoning_effort_type_0 import JudgeCreateReasoningEffortType0
from .judge_create_templates import JudgeCreateTemplates
from .judge_entry import JudgeEntry
from .judge_entry_role import JudgeEntryRole
from .judge_fields import JudgeFields
from .judge_fields_azure_auth import JudgeFieldsAzureAuth
from .judge_fields_batch_api import JudgeFieldsBatchApi
from .judge_fields_provider import JudgeFieldsProvider
from .judge_fields_reasoning_effort_type_0 import JudgeFieldsReasoningEffortType0
from .judge_fields_templates import JudgeFieldsTemplates
from .judge_left_out import JudgeLeftOut
from .judge_list import JudgeList
from .judge_read import JudgeRead
from .judge_read_provider_type_0 import JudgeReadProviderType0
from .judge_read_source import JudgeReadSource
from .judge_report import JudgeReport
from .judge_report_flags_item import JudgeReportFlagsItem
from .judge_result_read import JudgeResultRead
from .judge_result_read_confidence_source_type_0 import JudgeResultReadConfidenceSourceType0
from .judge_result_read_winner import JudgeResultReadWinner
from .judge_run_read import JudgeRunRead
from .judge_update import JudgeUpdate
from .judge_update_azure_auth_type_0 import JudgeUpdateAzureAuthType0
from .judge_update_batch_api_type_0 import JudgeUpdateBatchApiType0
from .judge_update_provider_type_0 import JudgeUpdateProviderType0
from .judge_update_reasoning_effort_type_0 import JudgeUpdateReasoningEffortType0
from .judge_update_templates_type_0 import JudgeUpdateTemplatesType0
from .judge_version_read import JudgeVersionRead
from .judge_win_rate import JudgeWinRate
from .judge_win_rate_tier import JudgeWinRateTier
from .label_in import LabelIn
from .label_in_shown_first_type_0 import LabelInShownFirstType0
from .label_in_winner import LabelInWinner
from .label_pair_stats import LabelPairStats
from .label_pair_stats_reason_type_0 import LabelPairStatsReasonType0
from .label_pair_stats_tier import LabelPairStatsTier
from .label_read import LabelRead
from .label_read_shown_first_type_0 import LabelReadShownFirstType0
from .label_read_winner import LabelReadWinner
from .label_section import LabelSection
from .label_section_by_pair import LabelSectionByPair
from .label_section_reason_type_0 import LabelSectionReasonType0
from .label_section_tier import LabelSectionTier
from .label_target import LabelTarget
from .labeler_test_read import LabelerTestRead
from .labeling_queue import LabelingQueue
from .labels_needed import LabelsNeeded
from .leaderboard import Leaderboard
from .leaderboard_filters_read import LeaderboardFiltersRead
from .leaderboard_filters_read_origin import LeaderboardFiltersReadOrigin
from .leave_one_judge_out import LeaveOneJudgeOut
from .length_baseline import LengthBaseline
from .length_baseline_tier import LengthBaselineTier
from .length_score_section import LengthScoreSection
from .length_score_section_band_type_0 import LengthScoreSectionBandType0
from .length_score_section_tier import LengthScoreSectionTier
from .length_section import LengthSection
from .length_section_reason_type_0 import LengthSectionReasonType0
from .length_section_tier import LengthSectionTier
from .lengths import Lengths
from .list_batch_results_format_type_0 import ListBatchResultsFormatType0
from .list_batch_results_status_type_0 import ListBatchResultsStatusType0
from .list_batches_mode_type_0 import ListBatchesModeType0
from .list_batches_status_type_0 import ListBatchesStatusType0
from .list_comparisons_status_type_0 import ListComparisonsStatusType0
from .model_standing import ModelStanding
from .model_standing_anchored_reason_type_0 import ModelStandingAnchoredReasonType0
from .offset_read import OffsetRead
from .offset_read_classification_type_0 import OffsetReadClassificationType0
from .offset_read_reason_type_0 import OffsetReadReasonType0
from .offset_read_tier import OffsetReadTier
from .pair_fragility import PairFragility
from .paired_test_read import PairedTestRead
from .paired_test_read_name import PairedTestReadName
from .panel_label_sections import PanelLabelSections
from .placebo_section import PlaceboSection
from .placebo_section_reason_type_0 import PlaceboSectionReasonType0
from .placebo_section_tier import PlaceboSectionTier
from .position_baseline import PositionBaseline
from .position_baseline_reason_type_0 import PositionBaselineReasonType0
from .position_baseline_tier import PositionBaselineTier
from .position_effect_read import PositionEffectRead
from .position_score_section import PositionScoreSection
from .position_score_section_reason_type_0 import PositionScoreSectionReasonType0
from .position_score_section_tier import PositionScoreSectionTier
from .position_section import PositionSection
from .position_section_reason_type_0 import PositionSectionReasonType0
from .position_section_test_type_0 import PositionSectionTestType0
from .position_section_tier import PositionSectionTier
from .probe_change import ProbeChange
from .probe_figure import ProbeFigure
from .problem import Problem
from .protocol_in import ProtocolIn
from .protocol_in_kind import ProtocolInKind
from .provider_job_read import ProviderJobRead
from .queue_item import QueueItem
from .queue_item_criteria_type_1_item import QueueItemCriteriaType1Item
from .queue_item_tags import QueueItemTags
from .queue_item_texts_withheld_type_0 import QueueItemTextsWithheldType0
from .queue_lengths import QueueLengths
from .rate_read import RateRead
from .rate_read_tier_type_0 import RateReadTierType0
from .reliability_bin_read import ReliabilityBinRead
from .report_filters_read import ReportFiltersRead
from .report_filters_read_bucket import ReportFiltersReadBucket
from .report_filters_read_origin import ReportFiltersReadOrigin
from .response_in import ResponseIn
from .response_scores import ResponseScores
from .response_scores_audit import ResponseScoresAudit
from .response_scores_calibrated import ResponseScoresCalibrated
from .response_scores_length_normalized_type_0 import ResponseScoresLengthNormalizedType0
from .response_scores_raw import ResponseScoresRaw
from .reviewer_correlation_read import ReviewerCorrelationRead
from .reviewer_correlation_read_band_type_0 import ReviewerCorrelationReadBandType0
from .reviewer_correlation_read_tier import ReviewerCorrelationReadTier
from .reviewer_entry import ReviewerEntry
from .reviewer_read import ReviewerRead
from .reviewer_read_classification_type_0 import ReviewerReadClassificationType0
from .reviewer_read_reason_type_0 import ReviewerReadReasonType0
from .reviewer_read_tier import ReviewerReadTier
from .reviewer_self_preference_read import ReviewerSelfPreferenceRead
from .reviewer_self_preference_read_reason_type_0 import ReviewerSelfPreferenceReadReasonType0
from .reviewer_self_preference_read_tier import ReviewerSelfPreferenceReadTier
from .rubric_in import RubricIn
from .rubric_level_in import RubricLevelIn
from .rubric_read import RubricRead
from .run_figures_read import RunFiguresRead
from .score_call_read import ScoreCallRead
from .score_request import ScoreRequest
from .score_request_self_preference_type_0 import ScoreRequestSelfPreferenceType0
from .score_request_tags import ScoreRequestTags
from .score_session_read import ScoreSessionRead
from .score_session_read_status import ScoreSessionReadStatus
from .score_session_read_tags import ScoreSessionReadTags
from .self_preference_section import SelfPreferenceSection
from .self_preference_section_reason_type_0 import SelfPreferenceSectionReasonType0
from .self_preference_section_tier import SelfPreferenceSectionTier
from .series_point import SeriesPoint
from .series_point_consistency_tier import SeriesPointConsistencyTier
from .series_point_granularity import SeriesPointGranularity
from .series_point_human_agreement_tier import SeriesPointHumanAgreementTier
from .series_point_tier import SeriesPointTier
from .shown_read import ShownRead
from .sim_settings import SimSettings
from .sim_settings_offsets import SimSettingsOffsets
from .source_calibration import SourceCalibration
from .win_rate_filters import WinRateFilters
from .win_rate_filters_origin import WinRateFiltersOrigin
from .win_rates import WinRates
from .win_rates_reasons import WinRatesReasons
from .win_rates_reasons_additional_property import WinRatesReasonsAdditionalProperty
from .win_rates_verdict import WinRatesVerdict

__all__ = (
    "AltTest",
    "AnchoredBaselineWinRate",
    "AnchoredRatings",
    "AnchoredRatingsReasonType0",
    "AnchoredWinRate",
    "AnchoredWinRateTier",
    "BaselinePin",
    "BaselineWinRate",
    "BaselineWinRateReasonType0",
    "BatchCounts",
    "BatchCreate",
    "BatchCreateMode",
    "BatchItemIn",
    "BatchItemList",
    "BatchItemRead",
    "BatchItemReadKind",
    "BatchItemReadStatus",
    "BatchList",
    "BatchRead",
    "BatchReadMode",
    "BatchReadStatus",
    "BiasReport",
    "CalibrationRead",
    "CallCounts",
    "CallCountsByErrorKind",
    "CallCountsTier",
    "CallRead",
    "CallReadConfidenceSourceType0",
    "CallReadDisplayOrder",
    "CallReadLabels",
    "CallReadMappedWinnerType0",
    "CallReadPickType0",
    "CanaryCreate",
    "CanaryDriftRead",
    "CanaryDriftReadTrigger",
    "CanaryJudgeRead",
    "CanaryList",
    "CanaryRead",
    "CanaryReadSelector",
    "CanaryRunCreate",
    "CanaryRunList",
    "CanaryRunRead",
    "CanaryRunReadStatus",
    "CanaryRunReadTrigger",
    "Card",
    "CardRead",
    "CardRunStarted",
    "CompareRequest",
    "CompareRequestSelfPreferenceType0",
    "CompareRequestTags",
    "ComparisonList",
    "ComparisonRead",
    "ComparisonReadConfidenceSourceType0",
    "ComparisonReadStatus",
    "ComparisonReadTags",
    "ComparisonReadWinnerType0",
    "ComparisonsDeleted",
    "ConfidenceSection",
    "ConfidenceSectionBySource",
    "ConfidenceSectionTier",
    "ConsistencySection",
    "ConsistencySectionReasonType0",
    "ConsistencySectionTier",
    "CriterionIn",
    "DriftAcknowledgement",
    "ExcludedRead",
    "ExcludedReviewerRead",
    "ExperimentCreate",
    "ExperimentItemIn",
    "ExperimentList",
    "ExperimentRead",
    "ExperimentReadDecisionType0",
    "ExperimentReadStatus",
    "ExperimentWinRate",
    "Fragility",
    "GetAltTestOrigin",
    "GetBiasReportBucket",
    "GetBiasReportOrigin",
    "GetLeaderboardOrigin",
    "GetWinRatesOrigin",
    "GoldRead",
    "GoldReadVotes",
    "GoldReadWinnerType0",
    "HealthzResponseHealthz",
    "HumanAgreementSection",
    "HumanAgreementSectionTier",
    "HumanBaselineSection",
    "HumanBaselineSectionConfusion",
    "HumanBaselineSectionConfusionAdditionalProperty",
    "HumanWinRate",
    "HumanWinRateTier",
    "ItemError",
    "JudgeAltTest",
    "JudgeAltTestReasonType0",
    "JudgeCreate",
    "JudgeCreateAzureAuth",
    "JudgeCreateBatchApi",
    "JudgeCreateProvider",
    "JudgeCreateReasoningEffortType0",
    "JudgeCreateTemplates",
    "JudgeEntry",
    "JudgeEntryRole",
    "JudgeFields",
    "JudgeFieldsAzureAuth",
    "JudgeFieldsBatchApi",
    "JudgeFieldsProvider",
    "JudgeFieldsReasoningEffortType0",
    "JudgeFieldsTemplates",
    "JudgeLeftOut",
    "JudgeList",
    "JudgeRead",
    "JudgeReadProviderType0",
    "JudgeReadSource",
    "JudgeReport",
    "JudgeReportFlagsItem",
    "JudgeResultRead",
    "JudgeResultReadConfidenceSourceType0",
    "JudgeResultReadWinner",
    "JudgeRunRead",
    "JudgeUpdate",
    "JudgeUpdateAzureAuthType0",
    "JudgeUpdateBatchApiType0",
    "JudgeUpdateProviderType0",
    "JudgeUpdateReasoningEffortType0",
    "JudgeUpdateTemplatesType0",
    "JudgeVersionRead",
    "JudgeWinRate",
    "JudgeWinRateTier",
    "LabelerTestRead",
    "LabelIn",
    "LabelingQueue",
    "LabelInShownFirstType0",
    "LabelInWinner",
    "LabelPairStats",
    "LabelPairStatsReasonType0",
    "LabelPairStatsTier",
    "LabelRead",
    "LabelReadShownFirstType0",
    "LabelReadWinner",
    "LabelSection",
    "LabelSectionByPair",
    "LabelSectionReasonType0",
    "LabelSectionTier",
    "LabelsNeeded",
    "LabelTarget",
    "Leaderboard",
    "LeaderboardFiltersRead",
    "LeaderboardFiltersReadOrigin",
    "LeaveOneJudgeOut",
    "LengthBaseline",
    "LengthBaselineTier",
    "Lengths",
    "LengthScoreSection",
    "LengthScoreSectionBandType0",
    "LengthScoreSectionTier",
    "LengthSection",
    "LengthSectionReasonType0",
    "LengthSectionTier",
    "ListBatchesModeType0",
    "ListBatchesStatusType0",
    "ListBatchResultsFormatType0",
    "ListBatchResultsStatusType0",
    "ListComparisonsStatusType0",
    "ModelStanding",
    "ModelStandingAnchoredReasonType0",
    "OffsetRead",
    "OffsetReadClassificationType0",
    "OffsetReadReasonType0",
    "OffsetReadTier",
    "PairedTestRead",
    "PairedTestReadName",
    "PairFragility",
    "PanelLabelSections",
    "PlaceboSection",
    "PlaceboSectionReasonType0",
    "PlaceboSectionTier",
    "PositionBaseline",
    "PositionBaselineReasonType0",
    "PositionBaselineTier",
    "PositionEffectRead",
    "PositionScoreSection",
    "PositionScoreSectionReasonType0",
    "PositionScoreSectionTier",
    "PositionSection",
    "PositionSectionReasonType0",
    "PositionSectionTestType0",
    "PositionSectionTier",
    "ProbeChange",
    "ProbeFigure",
    "Problem",
    "ProtocolIn",
    "ProtocolInKind",
    "ProviderJobRead",
    "QueueItem",
    "QueueItemCriteriaType1Item",
    "QueueItemTags",
    "QueueItemTextsWithheldType0",
    "QueueLengths",
    "RateRead",
    "RateReadTierType0",
    "ReliabilityBinRead",
    "ReportFiltersRead",
    "ReportFiltersReadBucket",
    "ReportFiltersReadOrigin",
    "ResponseIn",
    "ResponseScores",
    "ResponseScoresAudit",
    "ResponseScoresCalibrated",
    "ResponseScoresLengthNormalizedType0",
    "ResponseScoresRaw",
    "ReviewerCorrelationRead",
    "ReviewerCorrelationReadBandType0",
    "ReviewerCorrelationReadTier",
    "ReviewerEntry",
    "ReviewerRead",
    "ReviewerReadClassificationType0",
    "ReviewerReadReasonType0",
    "ReviewerReadTier",
    "ReviewerSelfPreferenceRead",
    "ReviewerSelfPreferenceReadReasonType0",
    "ReviewerSelfPreferenceReadTier",
    "RubricIn",
    "RubricLevelIn",
    "RubricRead",
    "RunFiguresRead",
    "ScoreCallRead",
    "ScoreRequest",
    "ScoreRequestSelfPreferenceType0",
    "ScoreRequestTags",
    "ScoreSessionRead",
    "ScoreSessionReadStatus",
    "ScoreSessionReadTags",
    "SelfPreferenceSection",
    "SelfPreferenceSectionReasonType0",
    "SelfPreferenceSectionTier",
    "SeriesPoint",
    "SeriesPointConsistencyTier",
    "SeriesPointGranularity",
    "SeriesPointHumanAgreementTier",
    "SeriesPointTier",
    "ShownRead",
    "SimSettings",
    "SimSettingsOffsets",
    "SourceCalibration",
    "WinRateFilters",
    "WinRateFiltersOrigin",
    "WinRates",
    "WinRatesReasons",
    "WinRatesReasonsAdditionalProperty",
    "WinRatesVerdict",
)
